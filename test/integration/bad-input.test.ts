// Bad input on the real apiserver: each case expects a clear one-line error (or a
// documented refusal) and no side effect at all, proved by the audit log (no mutating
// request that succeeded) and by the resourceVersions of everything in the namespace.
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { WATCHED_KINDS } from '../../src/core/kinds';
import { instanceLabelValue } from '../../src/core/model';
import {
  AuditEvent,
  AuditWindow,
  MUTATING,
  ROOT,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  serviceAccountKubeconfig,
  sleep,
  tokenKubeconfig,
  tryGetJson,
  useNamespace,
  webService,
  fromPlugin,
} from '../support/cluster';
import { FINALIZER } from '../../src/core/model';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';

const ns = useNamespace('badinput');
const audit = new AuditWindow(ns);
beforeAll(() => {
  // A bystander whose resourceVersion must never move while bad input is refused.
  applyYaml(ns(), webService('bystander', { image: 'nginx:1.27' }));
  expect(plugin(['apply', 'bystander', '-n', ns()]).status).toBe(0);
});

/** name -> resourceVersion of every WebService and ConfigMap in the namespace. */
function snapshot(): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const kind of ['webservices', 'configmaps']) {
    for (const item of getJson(['get', kind, '-n', ns()]).items as {
      metadata: { name: string; resourceVersion: string };
    }[]) {
      versions[`${kind}/${item.metadata.name}`] = item.metadata.resourceVersion;
    }
  }
  return versions;
}

const succeeded = (e: AuditEvent) => MUTATING.has(e.verb) && (e.responseStatus?.code ?? 0) < 400;
const describeEvent = (e: AuditEvent) =>
  `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name ?? ''} ${e.responseStatus?.code}`;

/**
 * Runs `action` and asserts it changed nothing: no mutating request in the namespace
 * succeeded, and every object there kept its resourceVersion.
 */
async function expectNoSideEffects<T>(action: () => T): Promise<T> {
  const before = snapshot();
  audit.mark();
  const result = action();
  expect((await audit.events()).filter(succeeded).map(describeEvent)).toEqual([]);
  expect(snapshot()).toEqual(before);
  return result;
}

/** kubectl apply of one WebService from stdin, without throwing on a refusal. */
function kubectlApply(object: unknown) {
  const result = spawnSync('kubectl', ['apply', '-n', ns(), '-f', '-'], {
    input: JSON.stringify(object),
    encoding: 'utf8',
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

const manifest = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apps.labhub.io/v1',
  kind: 'WebService',
  metadata: { name },
  spec,
});

/** A valid object name of exactly `length` characters. */
const nameOf = (length: number) => `n${length}-${'x'.repeat(length - `n${length}-`.length)}`;

describe('name length: every name the CRD accepts reconciles; longer names are refused at admission', () => {
  it.each([63, 64, 245])(
    'a %i-character name reconciles, converges, and a second pass writes nothing',
    async (length) => {
      const name = nameOf(length);
      expect(name).toHaveLength(length);
      applyYaml(ns(), webService(name, { image: 'nginx:1.27' }));
      const first = plugin(['apply', name, '-n', ns(), '-o', 'json']);
      expect(first.stderr).toBe('');
      expect(first.status).toBe(0);
      const cm = getJson(['get', 'configmap', `${name}-desired`, '-n', ns()]);
      expect(cm.metadata.labels['app.kubernetes.io/instance']).toBe(instanceLabelValue(name));
      expect(cm.metadata.labels['app.kubernetes.io/instance'].length).toBeLessThanOrEqual(63);
      expect(getJson(['get', 'webservice', name, '-n', ns()]).status.conditions[0]).toMatchObject({ status: 'True' });

      const second = await expectNoSideEffects(() => plugin(['apply', name, '-n', ns(), '-o', 'json']));
      expect(second.status).toBe(0);
      expect(JSON.parse(second.stdout).decision.action).toBe('noop');
    },
  );

  it('names up to 63 keep the name as the instance label; 64 gets a shortened one', () => {
    expect(instanceLabelValue(nameOf(63))).toBe(nameOf(63));
    expect(instanceLabelValue(nameOf(64))).not.toBe(nameOf(64));
  });

  it.each([246, 253])(
    'a %i-character name is refused at admission, saying why, and nothing is written',
    async (length) => {
      const name = nameOf(length);
      const result = await expectNoSideEffects(() => kubectlApply(manifest(name, { image: 'nginx:1.27' })));
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(
        'metadata.name may have at most 245 characters, so that the child ConfigMap <name>-desired fits in the 253 allowed for object names',
      );
      expect(tryGetJson(['get', 'webservice', name, '-n', ns()])).toBeNull();
    },
  );

  it.each([
    ['a 246-character name', nameOf(246), { image: 'nginx:1.27' }, 'at most 245 characters'],
    ['a dotted name with a workload', 'a.b', { image: 'nginx:1.27', workload: {} }, 'no dots'],
    ['a name starting with a digit with a port', '1web', { image: 'nginx:1.27', workload: { port: 80 } }, 'DNS-1035'],
  ])('every CEL refusal names its field: %s is refused on metadata.name, never <nil>', (_, name, spec, why) => {
    const result = kubectlApply(manifest(name, spec));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(new RegExp(`metadata\\.name: Invalid value: .*${why}`));
    expect(result.stderr).not.toContain('<nil>');
  });
});

describe('dependency cycles: Ready=False DependencyCycle naming the cycle, no child, no timer', () => {
  const readyOf = (name: string) =>
    (getJson(['get', 'webservice', name, '-n', ns()]).status?.conditions ?? []).find(
      (c: { type: string }) => c.type === 'Ready',
    );
  const cycleEvents = (name: string) =>
    (
      getJson(['get', 'events', '-n', ns(), '--field-selector', `involvedObject.name=${name}`]).items as {
        reason: string;
      }[]
    ).filter((e) => e.reason === 'DependencyCycle');

  it('a → b → a: apply --all --wait stops at once (exit 2) instead of waiting out its timeout', () => {
    applyYaml(ns(), webService('cyc-a', { image: 'nginx:1.27', dependsOn: ['cyc-b'] }));
    applyYaml(ns(), webService('cyc-b', { image: 'nginx:1.27', dependsOn: ['cyc-a'] }));
    const started = Date.now();
    const result = plugin(['apply', '--all', '--wait=60s', '-n', ns(), '-o', 'json']);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.status).toBe(2);
    const items = JSON.parse(result.stdout).items as {
      name: string;
      action: string;
      reason: string;
      after_seconds?: number;
    }[];
    const a = items.find((i) => i.name === 'cyc-a')!;
    expect(a).toMatchObject({ action: 'requeue' });
    expect(a.after_seconds).toBeUndefined();
    expect(a.reason).toContain('dependency cycle: cyc-a → cyc-b → cyc-a');
    expect(readyOf('cyc-a')).toMatchObject({ status: 'False', reason: 'DependencyCycle' });
    expect(readyOf('cyc-b').message).toContain('cyc-b → cyc-a → cyc-b');
    expect(tryGetJson(['get', 'configmap', 'cyc-a-desired', '-n', ns()])).toBeNull();
    expect(cycleEvents('cyc-a')).toHaveLength(1);
  });

  it('a second pass over the cycle writes nothing and reports no second event', async () => {
    const result = await expectNoSideEffects(() => plugin(['apply', '--all', '-n', ns(), '-o', 'json']));
    expect(result.status).toBe(2);
    expect(cycleEvents('cyc-a')).toHaveLength(1);
  });

  it('a cycle of 20, seen by plan NAME through one LIST once the dependency GETs would pass their bound', async () => {
    for (let i = 0; i < 20; i++)
      applyYaml(ns(), webService(`ring-${i}`, { image: 'nginx:1.27', dependsOn: [`ring-${(i + 1) % 20}`] }));
    audit.mark();
    const result = plugin(['plan', 'ring-0', '-n', ns(), '-o', 'json']);
    const requests = (await audit.events()).filter(fromPlugin);
    expect(requests.filter((e) => e.verb === 'list').map((e) => e.objectRef?.resource)).toEqual(['webservices']);
    expect(
      requests.filter((e) => e.verb === 'get' && e.objectRef?.resource === 'webservices').length,
    ).toBeLessThanOrEqual(17);
    expect(result.status).toBe(0);
    const decision = JSON.parse(result.stdout);
    expect(decision.cycle).toHaveLength(21);
    expect(decision.reason).toContain('ring-0 → ring-1 → ring-2');
    expect(decision.reason).toContain('ring-19 → ring-0');
  });

  it("a change to one member's spec resolves it", () => {
    patchWebService(ns(), 'cyc-b', [{ op: 'remove', path: '/spec/dependsOn' }]);
    expect(plugin(['apply', 'cyc-b', '-n', ns()]).status).toBe(0);
    expect(plugin(['apply', 'cyc-a', '-n', ns()]).status).toBe(0);
    expect(readyOf('cyc-a')).toMatchObject({ status: 'True', reason: 'Reconciled' });
  });
});

describe('dependency cycles under run: reported once, never on a timer, resolved by a spec change', () => {
  let loopNs: string;
  let kubeconfig: string;
  let ctl: ControllerProcess;
  const startController = async (requeueAfter: string) => {
    ctl = new ControllerProcess(['-n', loopNs, '--kubeconfig', kubeconfig, '--requeue-after', requeueAfter, '-v']);
    await ctl.waitForLog(/controller working/);
  };
  beforeAll(() => {
    loopNs = createNamespace('cycle-run');
    kubeconfig = controllerKubeconfig();
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await ctl?.stop();
    deleteNamespace(loopNs);
  });
  const ready = (name: string) =>
    (tryGetJson(['get', 'webservice', name, '-n', loopNs])?.status?.conditions ?? []).find(
      (c: { type: string }) => c.type === 'Ready',
    );
  const reconcilesOf = (key: string) => ctl.entries.filter((e) => e.msg === 'reconciled' && e.key === key).length;

  it('a → b → c → a: each member says DependencyCycle, and none is reconciled again until something changes', async () => {
    // --requeue-after 1: were a cycle put on a timer, it would come back every second.
    await startController('1');
    applyYaml(loopNs, webService('x', { image: 'nginx:1.27', dependsOn: ['y'] }));
    applyYaml(loopNs, webService('y', { image: 'nginx:1.27', dependsOn: ['z'] }));
    applyYaml(loopNs, webService('z', { image: 'nginx:1.27', dependsOn: ['x'] }));
    await eventually(() => ['x', 'y', 'z'].every((n) => ready(n)?.reason === 'DependencyCycle'));
    expect(ready('x').message).toContain('x → y → z → x');
    await sleep(1500); // let the status writes' own watch events settle
    // A cycle needs a person: when it is first written to status, run says so above INFO.
    expect(
      ctl.entries.filter((e) => e.level === 'warn' && String(e.reason).startsWith('dependency cycle')),
    ).not.toEqual([]);
    const before = reconcilesOf(`${loopNs}/x`);
    await sleep(5000);
    expect(reconcilesOf(`${loopNs}/x`)).toBe(before);
  });

  it('removing one edge converges the whole former loop within seconds, though the timer would not fire for 600 s', async () => {
    await ctl.stop();
    await startController('600');
    await sleep(1000);
    patchWebService(loopNs, 'z', [{ op: 'remove', path: '/spec/dependsOn' }]);
    await eventually(() => ['x', 'y', 'z'].every((n) => ready(n)?.status === 'True'), 20_000);
  });
});

// --- CRD admission ---------------------------------------------------------------------
// Already covered in foundation.test.ts (not repeated here): a missing image; images with
// `;`, `$(…)`, a space and a trailing newline; a self-dependency.

const LONG_IMAGE = `registry.example.com/${'a'.repeat(240)}:1`;

/** kubectl's header and the apiserver's notes around the one error that names the field. */
const ADMISSION_NOTES = [
  /^The WebService "[^"]+" is invalid:$/,
  /^\* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid/,
  /^\* <nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec\.replicas$/,
];

/** The lines of a refusal that are not kubectl's header or the apiserver's notes. */
function fieldErrors(stderr: string): string[] {
  return stderr
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => !ADMISSION_NOTES.some((note) => note.test(line)));
}

describe('CRD admission refuses a bad spec in one line naming the field, and nothing is stored', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'an empty image',
      { image: '' },
      /spec\.image: Invalid value: "": spec\.image in body should be at least 1 chars long/,
    ],
    [
      'an image that is a number',
      { image: 42 },
      /spec\.image: Invalid value: "integer": spec\.image in body must be of type string/,
    ],
    [
      'an image over 255 characters',
      { image: LONG_IMAGE },
      /spec\.image: Too long: may not be (more than|longer than) 255/,
    ],
    ['an image with backticks', { image: 'nginx`id`' }, /spec\.image: Invalid value: "nginx`id`"/],
    ['an image with double quotes', { image: 'nginx"1.27' }, /spec\.image: Invalid value/],
    ['an image with single quotes', { image: "nginx'1.27" }, /spec\.image: Invalid value/],
    ['an image with a carriage return', { image: 'nginx:1.27\r' }, /spec\.image: Invalid value/],
    ['an image with ${IFS}', { image: 'nginx${IFS}id' }, /spec\.image: Invalid value/],
    ['an image with a pipe', { image: 'nginx|sh' }, /spec\.image: Invalid value/],
    ['an image with &&', { image: 'nginx&&id' }, /spec\.image: Invalid value/],
    ['an image with a redirection', { image: 'nginx>out' }, /spec\.image: Invalid value/],
    ['an image with a backslash', { image: 'nginx\\x' }, /spec\.image: Invalid value/],
    [
      'an image that starts with a dash (an option to whatever reads it)',
      { image: '-nginx' },
      /spec\.image: Invalid value/,
    ],
    ['an image with a Cyrillic look-alike letter', { image: 'ngin\u0445:1.27' }, /spec\.image: Invalid value/],
    ['an image with a fullwidth colon', { image: 'nginx\uff1a1.27' }, /spec\.image: Invalid value/],
    [
      'negative replicas',
      { image: 'nginx:1.27', replicas: -1 },
      /spec\.replicas: Invalid value: -1: spec\.replicas in body should be greater than or equal to 0/,
    ],
    [
      'replicas over 1000',
      { image: 'nginx:1.27', replicas: 1001 },
      /spec\.replicas: Invalid value: 1001: spec\.replicas in body should be less than or equal to 1000/,
    ],
    [
      'replicas over int32',
      { image: 'nginx:1.27', replicas: 2 ** 31 },
      /spec\.replicas: Invalid value: 2147483648: spec\.replicas in body should be less than or equal to 1000/,
    ],
    [
      'replicas as a string',
      { image: 'nginx:1.27', replicas: '3' },
      /spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer/,
    ],
    [
      'fractional replicas',
      { image: 'nginx:1.27', replicas: 1.5 },
      /spec\.replicas: Invalid value: "float64": spec\.replicas in body must be of type int32/,
    ],
    ['a tier in capitals', { image: 'nginx:1.27', tier: 'Prod' }, /spec\.tier: Invalid value: "Prod"/],
    [
      'a dependency that is not an object name',
      { image: 'nginx:1.27', dependsOn: ['Bad_Name'] },
      /spec\.dependsOn\[0\]: Invalid value: "Bad_Name"/,
    ],
    [
      'the same dependency twice',
      { image: 'nginx:1.27', dependsOn: ['a', 'a'] },
      /spec\.dependsOn\[1\]: Duplicate value: "a"/,
    ],
    [
      'more than 32 dependencies',
      { image: 'nginx:1.27', dependsOn: Array.from({ length: 33 }, (_, i) => `d${i}`) },
      /spec\.dependsOn: Too many: 33: must have at most 32 items/,
    ],
    [
      'dependsOn as a string',
      { image: 'nginx:1.27', dependsOn: 'a' },
      /spec\.dependsOn: Invalid value: "string": spec\.dependsOn in body must be of type array/,
    ],
    [
      'an unknown field in spec (kubectl validates strictly by default)',
      { image: 'nginx:1.27', replicsa: 3 },
      /strict decoding error: unknown field "spec\.replicsa"/,
    ],
  ])('%s', async (_what, spec, expected) => {
    const name = `bad-${Math.floor(Math.random() * 1e9)}`;
    const result = await expectNoSideEffects(() => kubectlApply(manifest(name, spec)));
    expect(result.status).not.toBe(0);
    const errors = fieldErrors(result.stderr);
    expect(errors).toContainEqual(expect.stringMatching(expected));
    // The scale subresource checks spec.replicas once more, in its own words; nothing else may add to it.
    expect(errors.filter((e) => !expected.test(e)).filter((e) => !e.includes('.spec.replicas: Invalid value'))).toEqual(
      [],
    );
    expect(tryGetJson(['get', 'webservice', name, '-n', ns()])).toBeNull();
  });

  it('a WebService without spec is refused', async () => {
    const result = await expectNoSideEffects(() =>
      kubectlApply({ apiVersion: 'apps.labhub.io/v1', kind: 'WebService', metadata: { name: 'nospec' } }),
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/spec: Required value/);
  });

  it('an unknown field is pruned, not stored, when validation is turned off (documented)', () => {
    const result = spawnSync('kubectl', ['apply', '-n', ns(), '--validate=false', '-f', '-'], {
      input: JSON.stringify({ ...manifest('pruned', { image: 'nginx:1.27', replicsa: 3 }), extra: { x: 1 } }),
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    const stored = getJson(['get', 'webservice', 'pruned', '-n', ns()]);
    expect(stored.spec).toEqual({ image: 'nginx:1.27', replicas: 1, tier: 'dev' });
    expect(stored.extra).toBeUndefined();
    kubectl(['delete', 'webservice', 'pruned', '-n', ns()]);
  });
});

// --- the plugin's own inputs -----------------------------------------------------------
// Already covered in commands.test.ts: a missing CR; a refused connection failing within
// seconds; NAME with --all, --concurrency 0, an unknown flag; a NAME with a slash; a -f file
// without spec.image; apply forbidden (names verb and resource); a stale saved decision.
// foundation.test.ts: no kubeconfig at all.

const USAGE_HINT = 'See "kubectl webservice --help" for usage.';

/** One `error: …` line (a usage error may add the pointer to --help), no stack trace, exit 1. */
function expectOneLineError(result: { status: number; stderr: string }, message: RegExp): void {
  expect(result.status).toBe(1);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(message);
  expect(lines.slice(1).filter((line) => line !== USAGE_HINT)).toEqual([]);
}

/** Runs action and asserts the plugin sent no request at all, to any namespace. */
async function expectNoRequests<T>(action: () => T): Promise<T> {
  audit.mark();
  const result = action();
  expect((await audit.pluginRequests()).map(describeEvent)).toEqual([]);
  return result;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bad-input-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function writeScratch(name: string, text: string): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, text);
  return file;
}

/** A kubeconfig for the test cluster that authenticates with `token`. */
function kubeconfigWithToken(token: string, name: string): string {
  const cluster = getJson(['config', 'view', '--raw', '--minify']).clusters[0].cluster;
  return writeScratch(
    `${name}.kubeconfig`,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: ns() } }],
      'current-context': 'x',
    }),
  );
}

describe('the plugin refuses bad arguments in one line, before sending any request', () => {
  it.each<[string, string[], RegExp]>([
    [
      'a NAME in capitals',
      ['apply', 'Checkout'],
      /^error: invalid name "Checkout": must be a lowercase RFC 1123 subdomain/,
    ],
    [
      'a NAME that climbs the URL path',
      ['apply', '..'],
      /^error: invalid name "\.\.": must be a lowercase RFC 1123 subdomain/,
    ],
    ['a NAME of 254 characters', ['plan', 'x'.repeat(254)], /^error: invalid name "x{254}"/],
    [
      'a namespace that is not a label',
      ['apply', 'web', '-n', 'Bad_NS'],
      /^error: invalid namespace "Bad_NS": must be a lowercase RFC 1123 label/,
    ],
    ['a namespace of 64 characters', ['plan', '--all', '-n', 'n'.repeat(64)], /^error: invalid namespace "n{64}"/],
    [
      'an output format that does not exist',
      ['plan', 'web', '-o', 'xml'],
      /^error: unable to match a printer suitable for the output format "xml", allowed formats are: wide,json,yaml,name,jsonpath,custom-columns$/,
    ],
    ['a --wait that is not a duration', ['apply', 'web', '--wait=soon'], /^error: invalid duration for --wait: "soon"/],
    [
      'a --requeue-after that is not whole seconds',
      ['plan', 'web', '--requeue-after=1.5s'],
      /^error: --requeue-after must be a whole number of seconds, got "1\.5s"$/,
    ],
    [
      'a --dry-run value kubectl does not know',
      ['apply', 'web', '--dry-run=maybe'],
      /^error: invalid dry-run value \(maybe\); must be "none", "server", or "client"$/,
    ],
    [
      '--requeue-after 0',
      ['plan', 'web', '--requeue-after', '0'],
      /^error: --requeue-after must be longer than zero, got "0"$/,
    ],
    [
      'a negative --request-timeout',
      ['plan', 'web', '--request-timeout', '-1'],
      /^error: invalid duration for --request-timeout: "-1"/,
    ],
    ['a command that does not exist', ['frobnicate'], /^error: unknown command "frobnicate" for "kubectl webservice"$/],
    [
      'a NAME across all namespaces',
      ['plan', 'web', '-A'],
      /^error: a WebService cannot be retrieved by name across all namespaces/,
    ],
    ['neither NAME nor --all', ['apply'], /^error: give a WebService NAME or --all/],
    [
      'run with --concurrency 0',
      ['run', '--concurrency', '0'],
      /^error: --concurrency must be a whole number >= 1, got 0/,
    ],
    [
      'run with a watch timeout that is not a duration',
      ['run', '--watch-idle-timeout', 'forever'],
      /^error: invalid duration for --watch-idle-timeout: "forever"/,
    ],
    ['run with an unknown log format', ['run', '--log-format', 'xml'], /^error: Invalid values:.*Given: "xml"/],
  ])('%s', async (_what, args, message) => {
    const result = await expectNoRequests(() => plugin([...args, ...(args.includes('-n') ? [] : ['-n', ns()])]));
    expectOneLineError(result, message);
  });
});

describe('the plugin refuses bad kubeconfigs in one line', () => {
  it.each<[string, () => string[], RegExp]>([
    [
      'a kubeconfig that is not YAML',
      () => ['--kubeconfig', writeScratch('garbage.yaml', 'clusters: [\n')],
      /^error: cannot load kubeconfig .*garbage\.yaml: unexpected end of the stream/,
    ],
    [
      'an empty kubeconfig',
      () => ['--kubeconfig', writeScratch('empty.yaml', '')],
      /^error: cannot load kubeconfig .*empty\.yaml: the file is empty$/,
    ],
    ['a kubeconfig that is a directory', () => ['--kubeconfig', scratch], /^error: cannot read kubeconfig .*: EISDIR$/],
    [
      'a context that does not exist',
      () => ['--context', 'nowhere'],
      /^error: context "nowhere" does not exist in the kubeconfig$/,
    ],
  ])('%s', async (_what, flags, message) => {
    const result = await expectNoRequests(() => plugin(['plan', 'bystander', '-n', ns(), ...flags()]));
    expectOneLineError(result, message);
  });

  it('KUBECONFIG naming only files that do not exist', async () => {
    const result = await expectNoRequests(() =>
      plugin(['plan', 'bystander', '-n', ns()], {
        env: { KUBECONFIG: `${scratch}/nope-1${path.delimiter}${scratch}/nope-2` },
      }),
    );
    expectOneLineError(result, /^error: none of the files in KUBECONFIG exist/);
  });
});

describe('the plugin fails fast and in one line on a server it cannot use', () => {
  it('a server that accepts connections and never answers: fails after --request-timeout, not later', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const config = writeScratch(
      'silent.kubeconfig',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const started = Date.now();
    const result = plugin(['apply', '--all', '-n', ns(), '--kubeconfig', config, '--request-timeout', '3']);
    const elapsed = Date.now() - started;
    silent.close();
    expectOneLineError(result, new RegExp(`^error: https://127\\.0\\.0\\.1:${port}: no answer within 3s$`));
    expect(elapsed).toBeLessThan(8_000);
  });

  const localPlane = process.env.USE_EXISTING_CLUSTER === 'true' ? it.skip : it;

  it.each<[string, () => string]>([
    ['a token the server never issued', () => 'not-a-real-token-0123456789'],
    ['the token of a ServiceAccount that was deleted', () => deletedServiceAccountToken()],
  ])('%s: 401, said in one line, and nothing written', async (what, makeToken) => {
    await expectUnauthorized(makeToken(), what);
  });

  // Signed with the local plane's own service-account key, so only there.
  localPlane('an expired ServiceAccount token: 401, said in one line, and nothing written', async () => {
    await expectUnauthorized(mintServiceAccountToken(-3600), 'expired');
  });

  async function expectUnauthorized(token: string, what: string): Promise<void> {
    const config = kubeconfigWithToken(token, what.replace(/\W+/g, '-'));
    const result = await expectNoSideEffects(() => plugin(['apply', 'bystander', '--kubeconfig', config]));
    expectOneLineError(result, /^error: you must be logged in to the server \(Unauthorized\)/);
    expect(result.stderr).not.toContain(token.slice(-16));
  }

  localPlane('a token minted the same way but not expired is accepted (so the expiry is what is refused above)', () => {
    const config = kubeconfigWithToken(mintServiceAccountToken(3600), 'fresh-minted');
    const result = plugin(['plan', 'bystander', '--kubeconfig', config]);
    // Authenticated; this ServiceAccount has no rights, so the answer is 403, not 401.
    expectOneLineError(result, /cannot get resource "webservices" in API group "apps\.labhub\.io"/);
  });
});

/**
 * A ServiceAccount token signed with the test plane's own service-account key, valid
 * for `expiresIn` seconds from now (negative: already expired). Only on the local plane.
 */
function mintServiceAccountToken(expiresIn: number): string {
  const keyFile = path.join(process.env.WEBSERVICE_CP_DIR ?? '', 'pki', 'sa.key');
  const account = ensureServiceAccount('minted');
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = {
    iss: 'https://kubernetes.default.svc',
    aud: ['https://kubernetes.default.svc'],
    sub: `system:serviceaccount:${ns()}:minted`,
    iat: now - 7200,
    nbf: now - 7200,
    exp: now + expiresIn,
    'kubernetes.io': { namespace: ns(), serviceaccount: { name: 'minted', uid: account.metadata.uid } },
  };
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode(claims)}`;
  const signature = crypto.sign('RSA-SHA256', Buffer.from(unsigned), fs.readFileSync(keyFile)).toString('base64url');
  return `${unsigned}.${signature}`;
}

function ensureServiceAccount(name: string) {
  return (
    tryGetJson(['get', 'serviceaccount', name, '-n', ns()]) ??
    JSON.parse(kubectl(['create', 'serviceaccount', name, '-n', ns(), '-o', 'json']))
  );
}

let deletedToken: string | undefined;
function deletedServiceAccountToken(): string {
  if (!deletedToken) {
    ensureServiceAccount('gone');
    deletedToken = kubectl(['create', 'token', 'gone', '-n', ns(), '--duration=1h']).trim();
    kubectl(['delete', 'serviceaccount', 'gone', '-n', ns()]);
  }
  return deletedToken;
}

describe('RBAC: a forbidden operation says which verb on which resource, and changes nothing', () => {
  let reader: string;
  let nobody: string;
  beforeAll(() => {
    kubectl([
      'create',
      'role',
      'ws-reader',
      '-n',
      ns(),
      '--verb=get,list,watch',
      '--resource=webservices.apps.labhub.io,configmaps',
    ]);
    reader = serviceAccountKubeconfig(ns(), 'ws-reader', ['--role=ws-reader']);
    kubectl(['create', 'serviceaccount', 'nobody', '-n', ns()]);
    nobody = tokenKubeconfig(ns(), 'nobody');
    // A CR whose stored status is stale, so that `status` has something to write.
    applyYaml(ns(), webService('stale-status', { image: 'nginx:1.27' }));
    // A CR being deleted, held by our finalizer, with its child: what `finalize` cleans up.
    applyYaml(ns(), webService('leaving', { image: 'nginx:1.27' }, { finalizers: [FINALIZER] }));
    expect(plugin(['apply', 'leaving', '-n', ns()]).status).toBe(0);
    kubectl(['delete', 'webservice', 'leaving', '-n', ns(), '--wait=false']);
  });
  afterAll(() => {
    plugin(['finalize', 'leaving', '-n', ns()]);
  });

  it.each<[string, () => string[], RegExp]>([
    [
      'status without the right to write status',
      () => ['status', 'stale-status', '--kubeconfig', reader],
      /cannot patch resource "webservices\/status" in API group "apps\.labhub\.io"/,
    ],
    [
      'finalize without the right to delete ConfigMaps',
      () => ['finalize', 'leaving', '--kubeconfig', reader],
      /cannot delete resource "configmaps" in API group ""/,
    ],
    [
      'plan without the right to read WebServices',
      () => ['plan', 'bystander', '--kubeconfig', nobody],
      /cannot get resource "webservices" in API group "apps\.labhub\.io"/,
    ],
    [
      'apply --all without the right to list WebServices',
      () => ['apply', '--all', '--kubeconfig', nobody],
      /cannot list resource "webservices" in API group "apps\.labhub\.io"/,
    ],
  ])('%s', async (_what, args, message) => {
    const result = await expectNoSideEffects(() => plugin([...args(), '-n', ns()]));
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr.split('\n')[0]).toMatch(message);
  });
});

describe('-f files that are not what they should be are refused in one line, changing nothing', () => {
  let savedNoop: string;
  beforeAll(() => {
    savedNoop = plugin(['plan', 'bystander', '-n', ns(), '-o', 'json']).stdout;
    applyYaml(ns(), webService('someone-else', { image: 'nginx:1.27' }));
  });

  it.each<[string, () => string[], RegExp]>([
    [
      'plan -f a file that is neither JSON nor YAML',
      () => ['plan', '-f', writeScratch('not.json', '{"parent": [1, 2\n')],
      /^error: .*not\.json is neither JSON nor YAML: /,
    ],
    [
      'plan -f an object of a kind that is no WebService nor its child',
      () => ['plan', '-f', writeScratch('pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n')],
      new RegExp(
        `^error: -f takes WebServices and their children \\(${WATCHED_KINDS.map((r) => r.kind).join(', ')}\\), not a Pod$`,
      ),
    ],
    [
      'plan -f an empty file',
      () => ['plan', '-f', writeScratch('empty.json', '')],
      /^error: .*empty\.json holds no object$/,
    ],
    [
      'apply -f a file that does not exist',
      () => ['apply', '-f', path.join(scratch, 'missing.json')],
      /^error: cannot read .*missing\.json: ENOENT$/,
    ],
    [
      'observe -f an object without metadata.name',
      () => ['observe', '-f', writeScratch('noname.json', '{"parent":{"metadata":{},"spec":{"image":"x"}}}')],
      /^error: parent\.metadata\.name must be a string$/,
    ],
    [
      'apply -f a decision with an op we do not know',
      () => [
        'apply',
        '-f',
        writeScratch('op.json', JSON.stringify({ ...JSON.parse(savedNoop), ops: [{ op: 'rm -rf /' }] })),
      ],
      /^error: decision\.ops\[0\]\.op must be one of createChild, patchChild/,
    ],
    [
      'apply -f a decision whose namespace is not a valid name',
      () => [
        'apply',
        '-f',
        writeScratch('ns().json', JSON.stringify({ ...JSON.parse(savedNoop), namespace: '../kube-system' })),
      ],
      /^error: invalid decision\.namespace "\.\.\/kube-system"/,
    ],
    [
      'apply -f a decision that is not a decision (an observation)',
      () => [
        'apply',
        '-f',
        writeScratch('obs.json', plugin(['observe', 'bystander', '-n', ns(), '-o', 'json']).stdout),
      ],
      /^error: decision\.action must be one of create, update/,
    ],
  ])('%s', async (_what, args, message) => {
    const result = await expectNoSideEffects(() => plugin(args()));
    expectOneLineError(result, message);
  });

  it('apply -f a decision made for another object is refused as stale', async () => {
    const file = writeScratch('other.json', JSON.stringify({ ...JSON.parse(savedNoop), name: 'someone-else' }));
    const result = await expectNoSideEffects(() => plugin(['apply', '-f', file]));
    expectOneLineError(
      result,
      /^error: the decision in .*other\.json for webservice\/someone-else is stale: it was "noop" \(.*\), planning now gives "create"/,
    );
  });
});

// --- shells ----------------------------------------------------------------------------

describe('whatever reaches reconcile.sh is stored verbatim and never executed', () => {
  const marker = (n: number) => path.join(scratch, `executed-${n}`);
  const hostile = (n: number) => [`$(touch ${marker(n)})`, `\`touch ${marker(n + 1)}\``, `; touch ${marker(n + 2)} #`];
  let out: string;

  beforeAll(() => {
    out = fs.mkdtempSync(path.join(scratch, 'lab-out-'));
    // Annotations on the CR and data on the child are free text: the CRD cannot refuse them.
    applyYaml(
      ns(),
      JSON.stringify({
        ...manifest('shellsafe', { image: 'nginx:1.27' }),
        metadata: { name: 'shellsafe', annotations: Object.fromEntries(hostile(0).map((v, i) => [`note-${i}`, v])) },
      }),
    );
    expect(plugin(['apply', 'shellsafe', '-n', ns()]).status).toBe(0);
    const [image, note, extra] = hostile(10);
    kubectl([
      'patch',
      'configmap',
      'shellsafe-desired',
      '-n',
      ns(),
      '--type=merge',
      '-p',
      JSON.stringify({ data: { image, note, extra } }),
    ]);
  });

  const reconcileSh = (args: string[]) =>
    spawnSync('bash', [path.join(ROOT, 'scripts/lab/reconcile.sh'), ...args], {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, OUT_DIR: out, PATH: `${path.join(ROOT, 'dist')}${path.delimiter}${process.env.PATH}` },
    });

  it('hostile text in the child and in annotations is carried as data, and put back verbatim where it is ours', () => {
    const result = reconcileSh(['shellsafe', ns()]);
    expect(result.status).toBe(0);
    const observation = JSON.parse(fs.readFileSync(path.join(out, 'observe.json'), 'utf8'));
    expect(observation.actual.image).toBe(hostile(10)[0]);
    const decision = JSON.parse(fs.readFileSync(path.join(out, 'decision.json'), 'utf8'));
    expect(decision.changes).toContainEqual({ field: 'data.image', from: hostile(10)[0], to: 'nginx:1.27' });
    const child = getJson(['get', 'configmap', 'shellsafe-desired', '-n', ns()]);
    expect(child.data).toEqual({
      image: 'nginx:1.27',
      replicas: '1',
      tier: 'dev',
      note: hostile(10)[1],
      extra: hostile(10)[2],
    });
    expect(getJson(['get', 'webservice', 'shellsafe', '-n', ns()]).metadata.annotations['note-0']).toBe(hostile(0)[0]);
    expect(fs.readdirSync(scratch).filter((f) => f.startsWith('executed-'))).toEqual([]);
  });

  it('a hostile NAME argument is refused by kubectl and never run', () => {
    const result = reconcileSh([`x$(touch ${marker(20)})`, ns()]);
    expect(result.status).not.toBe(0);
    expect(fs.readdirSync(scratch).filter((f) => f.startsWith('executed-'))).toEqual([]);
  });
});
