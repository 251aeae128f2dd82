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

/** The text of a `## ` section of a page, from its heading up to the next heading of that level or above. */
export function docSection(file: string, heading: string): string {
  const lines = readDoc(file).split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`${file} has no section "## ${heading}"`);
  const end = lines.findIndex((line, i) => i > start && /^#{1,2} /.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}
