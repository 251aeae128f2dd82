// The chart's files/ are the files `kubectl webservice install` bundles, as regular files: Helm
// logs a warning for each symbolic link in a chart, on every lint, template and install.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

describe("the chart's files", () => {
  it('are copies of crds/ and deploy/, not links (npm run chart:files makes them)', () => {
    const check = spawnSync('bash', [path.join(ROOT, 'scripts/chart-files.sh'), '--check'], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
