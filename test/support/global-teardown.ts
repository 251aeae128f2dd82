// Stops the control plane that global-setup started.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { ROOT } from './cluster';

export default async function globalTeardown(): Promise<void> {
  if (process.env.USE_EXISTING_CLUSTER === 'true' || !process.env.WEBSERVICE_CP_DIR) return;
  if (process.env.KEEP_CONTROL_PLANE === 'true') {
    process.stderr.write(`control plane kept running: ${process.env.WEBSERVICE_CP_DIR}\n`);
    return;
  }
  execFileSync('bash', [path.join(ROOT, 'scripts/control-plane.sh'), 'down'], { stdio: 'inherit' });
}
