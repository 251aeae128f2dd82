// The campaign's plane: one where Deployments roll out (kube-scheduler, KWOK's fake Nodes).
import { startControlPlane } from '../support/global-setup';

export default async function campaignSetup(): Promise<void> {
  await startControlPlane({ workloads: true });
}
