// The fault suite's setup: the shared control plane, and a fresh results log, so the
// figures in docs/RELIABILITY.md (npm run faults:report) come from one whole run.
import * as fs from 'node:fs';
import globalSetup from '../support/global-setup';
import { RESULTS } from './support';

export default async function faultsSetup(): Promise<void> {
  fs.rmSync(RESULTS, { force: true });
  await globalSetup();
}
