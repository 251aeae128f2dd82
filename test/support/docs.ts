// The project's prose: the README and the pages of docs/, which tests read (their console
// blocks are run, their lists checked against the code).
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Every Markdown file of the manual, relative to the repository: the README first. */
export const DOC_FILES: readonly string[] = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

export function readDoc(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}
