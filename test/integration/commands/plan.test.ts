// plan, driven as a user would (the bundled plugin in a child process) against the real
// apiserver, with writes counted in the audit log: there must be none.
import { spawnSync } from 'node:child_process';
import { AuditWindow, PLUGIN, applyYaml, plugin, useNamespace, webService } from '../../support/cluster';
import { inNamespace } from '../../support/commands';

const ns = useNamespace('plan');
const audit = new AuditWindow(ns);
const { json, child } = inNamespace(ns);

describe('plan', () => {
  beforeAll(() => applyYaml(ns(), webService('planned', { image: 'nginx:1.27' })));

  it('-o json prints exactly one decision and writes nothing', async () => {
    audit.mark();
    const { status, value } = json(['plan', 'planned']);
    expect(status).toBe(0);
    expect(value).toMatchObject({
      action: 'create',
      reason: 'configmap/planned-desired does not exist yet',
      target: 'configmap/planned-desired',
      is_error: false,
    });
    expect(await audit.mutating()).toEqual([]);
    expect(child('planned')).toBeNull();
  });

  it('prints a coloured-by-action table (plain without a TTY)', () => {
    const result = plugin(['plan', '--all', '-n', ns()]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^NAME\s+ACTION\s+TARGET\s+REASON\n/);
    expect(result.stdout).toMatch(/planned\s+create\s+configmap\/planned-desired/);
    expect(result.stdout).not.toMatch(/\u001b\[/);
  });
});

describe('colour', () => {
  // `script` gives the plugin a real terminal, the only place colour belongs.
  const onTty = (env: string) =>
    spawnSync('script', ['-qec', `${env} ${PLUGIN} plan --all -n ${ns()}`, '/dev/null'], { encoding: 'utf8' }).stdout;

  it('colours actions on a terminal', () => {
    expect(onTty('env -u NO_COLOR')).toMatch(/\u001b\[32mcreate|\u001b\[2mnoop/);
  });

  it('never with NO_COLOR or --no-color, and never in -o json', () => {
    expect(onTty('NO_COLOR=1')).not.toMatch(/\u001b\[/);
    expect(
      spawnSync('script', ['-qec', `env -u NO_COLOR ${PLUGIN} plan --all --no-color -n ${ns()}`, '/dev/null'], {
        encoding: 'utf8',
      }).stdout,
    ).not.toMatch(/\u001b\[/);
    expect(
      spawnSync('script', ['-qec', `env -u NO_COLOR ${PLUGIN} plan --all -o json -n ${ns()}`, '/dev/null'], {
        encoding: 'utf8',
      }).stdout,
    ).not.toMatch(/\u001b\[/);
  });
});
