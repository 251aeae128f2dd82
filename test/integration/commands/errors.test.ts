// What every command says when it cannot do what was asked: one line, kubectl style, and
// the exit status; on the real apiserver.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  AuditWindow,
  applyYaml,
  kubectl,
  plugin,
  serviceAccountKubeconfig,
  useNamespace,
  webService,
} from '../../support/cluster';
import { inNamespace } from '../../support/commands';

const ns = useNamespace('errors');
const audit = new AuditWindow(ns);
const { child, ws } = inNamespace(ns);

describe('errors', () => {
  it('a missing CR: one line, kubectl style, exit 1', () => {
    const result = plugin(['plan', 'nope', '-n', ns()]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('error: webservices.apps.labhub.io "nope" not found\n');
  });

  it('no cluster: fails within seconds with a clear line and no stack trace', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nocluster-'));
    const config = path.join(dir, 'config');
    fs.writeFileSync(
      config,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    const started = Date.now();
    const result = plugin(['apply', '--all', '-n', 'default', '--kubeconfig', config]);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: the connection to the server https:\/\/127\.0\.0\.1:1 was refused .*\n$/);
  });

  it('invalid flags: one line and a pointer to --help', () => {
    const result = plugin(['apply', 'web', '--all', '-n', ns()]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('error: give either NAMEs or --all, not both\n');
    const bad = plugin(['apply', '--all', '--concurrency', '0', '-n', ns()]);
    expect(bad.stderr).toBe('error: --concurrency must be a whole number >= 1, got 0\n');
    const unknown = plugin(['plan', '--bogus']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('error: unknown flag: --bogus\nSee "kubectl webservice --help" for usage.\n');
  });

  it('a NAME that is not a valid object name is refused before any request', async () => {
    audit.mark();
    const result = plugin(['apply', 'web/status', '-n', ns()]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'error: "web/status": this plugin acts on webservices only (give NAME or webservice/NAME)\n',
    );
    expect(await audit.events()).toEqual([]);
  });

  it('bad input files: one line naming the problem', () => {
    const result = plugin(['plan', '-f', '-'], { input: '{"parent": {"metadata": {"name": "x"}, "spec": {}}}' });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('error: parent.spec.image must be a non-empty string\n');
  });

  describe('RBAC', () => {
    let kubeconfig: string;
    beforeAll(() => {
      // A real identity with read-only access: a ServiceAccount token from the TokenRequest API.
      kubectl([
        'create',
        'role',
        'reader',
        '-n',
        ns(),
        '--verb=get,list,watch',
        '--resource=webservices.apps.labhub.io,configmaps',
      ]);
      kubeconfig = serviceAccountKubeconfig(ns(), 'reader', ['--role=reader']);
      applyYaml(ns(), webService('locked', { image: 'nginx:1.27' }));
    });

    it('plan works with read access', () => {
      const result = plugin(['plan', 'locked', '--kubeconfig', kubeconfig, '-o', 'json']);
      expect(result.status).toBe(0);
      expect(JSON.parse(result.stdout).action).toBe('create');
    });

    it('apply says which verb on which resource is forbidden, and changes nothing', () => {
      const result = plugin(['apply', 'locked', '--kubeconfig', kubeconfig, '-o', 'json']);
      expect(result.status).toBe(1);
      const { result: outcome } = JSON.parse(result.stdout);
      // The first write of a create is the child's.
      expect(outcome.error).toMatch(/cannot create resource "configmaps" in API group ""/);
      expect(result.stderr).toMatch(
        new RegExp(
          `^error: webservice ${ns()}/locked: .*User "system:serviceaccount:${ns()}:reader" cannot create resource "configmaps"[^\n]*\n`,
        ),
      );
      // One error; the reader may not record Events either, which is a warning, not a second error.
      expect(result.stderr.match(/^error:/gm)).toHaveLength(1);
      expect(result.stderr).toMatch(/^warning: Events were not recorded: .*cannot create resource "events"/m);
      expect(child('locked')).toBeNull();
      expect(ws('locked').metadata.finalizers).toBeUndefined();

      const table = plugin(['apply', 'locked', '--kubeconfig', kubeconfig]);
      expect(table.status).toBe(1);
      expect(table.stdout).toMatch(
        /locked\s+create\s+configmap\/locked-desired\s+error: .*is forbidden: User "system:serviceaccount:/,
      );
    });
  });
});
