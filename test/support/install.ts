// What install's tests (test/integration/install.test.ts) and uninstall --force's, in the
// fault suite (test/faults/uninstall.test.ts), share: one namespace, removed only once the
// CRD is back, and the WebServices that uninstall has to deal with.
import { FINALIZER } from '../../src/core/model';
import { AuditWindow, applyYaml, plugin, restoreCrd, useNamespace, webService } from './cluster';

/** The install tests' namespace and an audit window on it; afterAll installs the CRD again, then deletes it. */
export function useInstallNamespace(): { ns: () => string; audit: AuditWindow } {
  const ns = useNamespace('install', { beforeDelete: restoreCrd });
  return { ns, audit: new AuditWindow(ns) };
}

/**
 * For a describe on uninstall: two reconciled WebServices that carry our finalizer, as an
 * older version of the plugin added it (without --force's care, deleting the CRD would hang
 * on it), made in beforeAll; afterAll installs the CRD again.
 */
export function useLegacyWebServices(ns: () => string): void {
  afterAll(restoreCrd);
  beforeAll(() => {
    const legacy = { finalizers: [FINALIZER] };
    applyYaml(ns(), webService('kept', { image: 'nginx:1.27' }, legacy));
    applyYaml(ns(), webService('also-kept', { image: 'nginx:1.27' }, legacy));
    const applied = plugin(['apply', '--all', '-n', ns()]);
    if (applied.status !== 0) throw new Error(applied.stderr);
  });
}
