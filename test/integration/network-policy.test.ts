// spec.workload.networkPolicy: a NetworkPolicy named after the WebService, a row of the kind
// table like the rest. The plane has no network plugin, so what it admits is checked as data:
// the pods' selector, their ports, the app's own pods and the spec's peers. A converged pass
// writes nothing; a change of peers is applied; dropping the field deletes it.
import { AuditWindow } from '../support/audit';
import {
  applyYaml,
  describeWorkloads,
  getJson,
  plugin,
  tryGetJson,
  useNamespace,
  webService,
} from '../support/cluster';
import { pluginMutations } from '../support/commands';

type Json = Record<string, any>;

describeWorkloads('a NetworkPolicy', () => {
  const ns = useNamespace('netpol');
  const audit = new AuditWindow(ns);
  const INGRESS_NAMESPACE = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } };
  const GATEWAY_PODS = {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'gateways' } },
    podSelector: { matchLabels: { app: 'envoy' } },
  };
  const setPolicy = (networkPolicy: Json | undefined) =>
    applyYaml(
      ns(),
      webService('shop', {
        image: 'nginx:1.27',
        workload: { port: 8080, ports: [{ name: 'metrics', port: 9090 }], networkPolicy },
      }),
    );
  const converge = () => {
    const result = plugin(['apply', 'shop', '-n', ns(), '--wait=3m']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  };
  const policy = () => tryGetJson(['get', 'networkpolicy', 'shop', '-n', ns()]);

  it("admits the app's own pods and the spec's peers to the pods' ports, and nothing else", () => {
    setPolicy({ from: [INGRESS_NAMESPACE] });
    converge();
    const ws = getJson(['get', 'webservice', 'shop', '-n', ns()]);
    const { spec, metadata } = policy();
    expect(metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'WebService', name: 'shop', uid: ws.metadata.uid, controller: true }),
    ]);
    const selector = Object.entries(spec.podSelector.matchLabels as Record<string, string>).map(
      ([k, v]) => `${k}=${v}`,
    );
    expect(selector.sort()).toEqual((ws.status.selector as string).split(',').sort());
    expect(spec.policyTypes).toEqual(['Ingress']);
    expect(spec.ingress).toEqual([
      {
        from: [{ podSelector: spec.podSelector }, INGRESS_NAMESPACE],
        ports: [
          { port: 8080, protocol: 'TCP' },
          { port: 9090, protocol: 'TCP' },
        ],
      },
    ]);
  });

  it('writes nothing once converged, follows a change of peers, and goes with the field', async () => {
    audit.mark();
    converge();
    expect(await pluginMutations(audit)).toEqual([]);
    setPolicy({ from: [GATEWAY_PODS] });
    converge();
    expect(policy().spec.ingress[0].from).toEqual([{ podSelector: policy().spec.podSelector }, GATEWAY_PODS]);
    setPolicy({});
    converge();
    expect(policy().spec.ingress[0].from).toEqual([{ podSelector: policy().spec.podSelector }]);
    setPolicy(undefined);
    converge();
    expect(policy()).toBeNull();
  });
});
