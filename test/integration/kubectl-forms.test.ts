// The forms a kubectl user types: several NAMEs, TYPE/NAME, -A without --all, -l, -o name,
// and kubectl's words for a command or a flag that does not exist.
import {
  AuditWindow,
  applyYaml,
  createNamespace,
  deleteNamespace,
  kubectl,
  plugin,
  webService,
} from '../support/cluster';
import { KIND_ROWS, expectNamesKind } from '../support/kind-names';

let ns: string;
beforeAll(() => {
  ns = createNamespace('forms');
  applyYaml(ns, webService('billing', { image: 'nginx:1.27' }, { labels: { team: 'pay' } }));
  applyYaml(ns, webService('search', { image: 'nginx:1.27' }, { labels: { team: 'find' } }));
  applyYaml(ns, webService('checkout', { image: 'nginx:1.27' }, { labels: { team: 'pay' } }));
});
afterAll(() => deleteNamespace(ns));

const names = (stdout: string) => (JSON.parse(stdout).items as { name: string }[]).map((i) => i.name);

it('several NAMEs, in the order given, as a list', () => {
  const result = plugin(['plan', 'search', 'billing', '-n', ns, '-o', 'json']);
  expect(result.stderr).toBe('');
  expect(names(result.stdout)).toEqual(['search', 'billing']);
});

it.each(['webservice/billing', 'webservices/billing', 'ws/billing', 'webservices.apps.labhub.io/billing'])(
  '%s is the WebService billing',
  (word) => {
    const result = plugin(['plan', word, '-n', ns, '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'billing', namespace: ns });
  },
);

it('-A alone means every WebService in every namespace', () => {
  const result = plugin(['plan', '-A', '-o', 'json']);
  expect(result.status).toBe(0);
  const items = JSON.parse(result.stdout).items as { namespace: string }[];
  expect(items.filter((i) => i.namespace === ns)).toHaveLength(3);
});

it('-l selects by label, implies --all, and is matched by the API server', () => {
  const result = plugin(['plan', '-l', 'team=pay', '-n', ns, '-o', 'json']);
  expect(result.stderr).toBe('');
  expect(names(result.stdout).sort()).toEqual(['billing', 'checkout']);
  const none = plugin(['plan', '--all', '-l', 'team notin (pay,find)', '-n', ns, '-o', 'json']);
  expect(names(none.stdout)).toEqual([]);
});

it('-o name prints webservice.apps.labhub.io/NAME, one a line', () => {
  const result = plugin(['status', '--all', '-n', ns, '-o', 'name', '--dry-run']);
  expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual([
    'webservice.apps.labhub.io/billing',
    'webservice.apps.labhub.io/checkout',
    'webservice.apps.labhub.io/search',
  ]);
});

describe('usage errors in kubectl words, before any request', () => {
  const audit = () => new AuditWindow(ns);

  it('an unknown command, with the command it resembles', async () => {
    const window = audit();
    window.mark();
    const result = plugin(['aply', 'billing', '-n', ns]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'error: unknown command "aply" for "kubectl webservice"\n\nDid you mean this?\n\tapply\n',
    );
    expect(await window.pluginRequests()).toEqual([]);
  });

  it('an unknown flag, named as typed', () => {
    const result = plugin(['plan', 'billing', '--frob', '-n', ns]);
    expect(result.status).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe('error: unknown flag: --frob');
  });

  it('an output format kubectl does not know', () => {
    const result = plugin(['plan', 'billing', '-o', 'yml', '-n', ns]);
    expect(result.stderr.split('\n')[0]).toBe(
      'error: unable to match a printer suitable for the output format "yml", allowed formats are: wide,json,yaml,name,jsonpath,custom-columns',
    );
  });

  it('another kind is refused, and so are NAMEs with -l or -A', () => {
    expect(plugin(['plan', 'configmap/billing', '-n', ns]).stderr).toBe(
      'error: "configmap/billing": this plugin acts on webservices only (give NAME or webservice/NAME)\n',
    );
    expect(plugin(['plan', 'billing', '-l', 'team=pay', '-n', ns]).stderr).toBe(
      'error: a selector (-l) chooses among all WebServices: give it without NAMEs\n',
    );
    expect(plugin(['plan', 'billing', '-A']).stderr).toBe(
      'error: a WebService cannot be retrieved by name across all namespaces\n',
    );
  });

  it('a bare kubectl webservice prints the help and exits 0', () => {
    const result = plugin([]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^kubectl webservice <command>/);
    expect(result.stdout).toContain('kubectl webservice apply');
  });

  it('--help offers only what a command uses, and names every kind of child', () => {
    const help = (command: string) => plugin([command, '--help']).stdout.replace(/\s+/g, ' ');
    // run logs (--log-format): it prints no table, so -o is not offered.
    expect(help('run')).not.toMatch(/--output|-o,/);
    expect(help('plan')).toContain('-o, --output');
    // -A on a command without --all says what it does there.
    for (const command of ['run', 'check', 'plan']) {
      expect(help(command)).toContain(
        '-A, --all-namespaces Every namespace instead of one (on a command that takes NAMEs, it implies --all)',
      );
    }
    // The children, from the kind table: every kind is named.
    for (const command of ['apply', 'observe']) {
      for (const [, row] of KIND_ROWS) expectNamesKind(help(command), row);
    }
  });
});

describe('-f takes YAML or JSON, one object or a List, as kubectl and plan print them', () => {
  beforeAll(() => {
    expect(plugin(['apply', 'billing', '-n', ns]).status).toBe(0);
  });

  it('kubectl get webservice -o json | plan -f -', () => {
    const parent = kubectl(['get', 'webservice', 'search', '-n', ns, '-o', 'json']);
    const result = plugin(['plan', '-f', '-'], { input: parent });
    expect(result.stderr).toBe('');
    // Only the parent was given: its child is not among the objects, so it would be created.
    expect(JSON.parse(plugin(['plan', '-f', '-', '-o', 'json'], { input: parent }).stdout)).toMatchObject({
      name: 'search',
      action: 'create',
    });
  });

  it('a List of a WebService and its child, in YAML, is planned from those objects', () => {
    const list = kubectl(['get', 'webservice/billing', 'configmap/billing-desired', '-n', ns, '-o', 'yaml']);
    const result = plugin(['plan', '-f', '-', '-o', 'json'], { input: list });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'billing', action: 'noop' });
  });

  it('plan -o yaml saves decisions that apply -f carries out', () => {
    const saved = plugin(['plan', 'checkout', 'search', '-n', ns, '-o', 'yaml']).stdout;
    const result = plugin(['apply', '-f', '-', '-o', 'json'], { input: saved });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const items = JSON.parse(result.stdout).items as { decision: { name: string; action: string } }[];
    expect(items.map((i) => [i.decision.name, i.decision.action])).toEqual([
      ['checkout', 'create'],
      ['search', 'create'],
    ]);
    expect(kubectl(['get', 'configmap', 'checkout-desired', 'search-desired', '-n', ns, '-o', 'name'])).toBe(
      'configmap/checkout-desired\nconfigmap/search-desired\n',
    );
  });

  it('apply -f a WebService manifest says to use kubectl apply, and changes nothing', () => {
    const result = plugin(['apply', '-f', '-', '-n', ns], { input: webService('new-one', { image: 'nginx:1.27' }) });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: - holds Kubernetes objects: apply -f carries out decisions saved by/);
  });
});

describe('--as, --as-group, --token and -s, as kubectl takes them', () => {
  it('--as impersonates a user, and --as-group adds its groups', () => {
    const alone = plugin(['plan', 'billing', '-n', ns, '--as=alice']);
    expect(alone.status).toBe(1);
    expect(alone.stderr).toMatch(/^error: .* is forbidden: User "alice" cannot get resource "webservices"/);
    const admin = plugin(['plan', 'billing', '-n', ns, '--as=alice', '--as-group=system:masters', '-o', 'json']);
    expect(admin.stderr).toBe('');
    expect(JSON.parse(admin.stdout)).toMatchObject({ name: 'billing' });
    expect(plugin(['plan', 'billing', '-n', ns, '--as-group=system:masters']).stderr).toBe(
      'error: --as-group needs --as: a group is impersonated along with a user\n',
    );
  });

  it("--token replaces the context's credentials, and -s its server", () => {
    kubectl(['create', 'serviceaccount', 'nobody', '-n', ns]);
    const token = kubectl(['create', 'token', 'nobody', '-n', ns]).trim();
    const result = plugin(['plan', 'billing', '-n', ns, `--token=${token}`]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`User "system:serviceaccount:${ns}:nobody" cannot get resource`));
    expect(plugin(['plan', 'billing', '-n', ns, '-s', 'https://127.0.0.1:1']).stderr).toMatch(
      /^error: the connection to the server https:\/\/127\.0\.0\.1:1 was refused/,
    );
  });
});

describe('-o jsonpath= and -o custom-columns=, as kubectl takes them', () => {
  it('jsonpath over the list --all prints, with range', () => {
    const result = plugin(['plan', '-l', 'team=pay', '-n', ns, '-o', 'jsonpath={range .items[*]}{.name}{"\\n"}{end}']);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual(['billing', 'checkout']);
  });

  it('custom-columns: one row per WebService', () => {
    const result = plugin([
      'status',
      'billing',
      '-n',
      ns,
      '--dry-run',
      '-o',
      'custom-columns=NAME:.name,GEN:.generation',
    ]);
    expect(result.stdout).toMatch(/^NAME\s+GEN\nbilling\s+1\n$/);
  });
});
