// The manual against the code and against itself: "How it is built" names every kind of child
// in the kind table, and every relative link of the README and docs/ leads to a file, and to a
// heading of it when it names one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DOC_FILES, docSection, readDoc } from '../support/docs';
import { KIND_ROWS, expectNamesKind } from '../support/kind-names';

const ROOT = path.resolve(__dirname, '../..');

describe('docs/development.md, "How it is built"', () => {
  const section = docSection('docs/development.md', 'How it is built');

  it.each(KIND_ROWS)('names the kind of child %s', (_, row) => expectNamesKind(section, row));
});

/** The lines of a page outside its fenced code blocks, with inline code taken out. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').flatMap((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [line.replace(/`[^`]*`/g, '')];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): string[] {
  return prose(readDoc(file))
    .map((line) => /^#{1,6} (.*)$/.exec(line)?.[1])
    .filter((heading) => heading !== undefined)
    .map(anchor);
}

describe.each(DOC_FILES)('the links of %s', (file) => {
  const links = prose(readDoc(file)).flatMap((line) =>
    [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((target) => !/^[a-z]+:/.test(target)),
  );

  it('lead to files of the repository, and to their headings', () => {
    const broken = links.filter((target) => {
      const [relative, hash = ''] = target.split('#');
      const linked = relative ? path.join(path.dirname(file), relative) : file;
      if (!fs.existsSync(path.join(ROOT, linked))) return true;
      return hash !== '' && linked.endsWith('.md') && !anchors(linked).includes(hash);
    });
    expect(broken).toEqual([]);
  });
});
