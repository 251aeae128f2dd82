// Usage: npm run rbac:generate     (then copies the files into the chart: npm run chart:files)
//
// Writes the rules of the kinds of child into the ClusterRoles (crds/rbac/, deploy/10-rbac.yaml)
// and the leader fence (deploy/15-leader-fence.yaml), from the kind table (see rules.ts): a new
// kind of child is a row, not an edit of each file. Everything else in them stays as written by
// hand. A unit test fails while a file differs from what this writes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATED_FILES, regenerate } from './rules';

function main(): void {
  for (const file of Object.keys(GENERATED_FILES)) {
    const full = path.join(process.cwd(), file);
    const text = fs.readFileSync(full, 'utf8');
    const made = regenerate(file, text);
    if (made === text) continue;
    fs.writeFileSync(full, made);
    console.log(`wrote the rules of the kind table into ${file}`);
  }
}

main();
