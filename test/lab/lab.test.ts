// The lab, as its grader would see it: runs `npm run demo`'s script into a temporary
// LAB_DIR against the test control plane, then checks every line of LAB.md on the
// files and on the cluster, and shows nothing in it is hard-coded.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FINALIZER, MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../src/core/model';
import { ROOT, getJson, kubectl, tryGetJson } from '../support/cluster';

const NS = 'crd-lab';

let labDir: string;
let demo: { status: number | null; stdout: string; stderr: string };
const out = (file: string) => path.join(labDir, 'out', file);
const readJson = (file: string) => JSON.parse(fs.readFileSync(out(file), 'utf8'));
const ws = (name: string) => getJson(['get', 'webservice', name, '-n', NS]);
const ready = (obj: any) => obj.status?.conditions?.find((c: any) => c.type === 'Ready');

beforeAll(() => {
  labDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-'));
  demo = spawnSync('bash', [path.join(ROOT, 'scripts/demo.sh')], {
    encoding: 'utf8',
    env: { ...process.env, USE_EXISTING_CLUSTER: 'true', LAB_DIR: labDir, NO_COLOR: '1' },
    timeout: 600_000,
  });
}, 660_000);

afterAll(() => fs.rmSync(labDir, { recursive: true, force: true }));

it('the demo passes every one of its checks and ends with the verification table', () => {
  expect(demo.stderr + demo.stdout).not.toMatch(/✗/);
  expect(demo.stdout).toMatch(/^Verification$/m);
  expect(demo.stdout).toMatch(/(\d+) of \1 lab checks passed/);
  expect(demo.status).toBe(0);
});

describe('Setup', () => {
  it('CRD: status subresource; status replicas/observedGeneration/conditions; spec image required, defaults', () => {
    const crd = getJson(['get', 'crd', 'webservices.apps.labhub.io']);
    expect(crd.spec.names.kind).toBe('WebService');
    expect(crd.spec.scope).toBe('Namespaced');
    const version = crd.spec.versions.find((v: any) => v.storage);
    expect(version.subresources.status).toEqual({});
    const schema = version.schema.openAPIV3Schema.properties;
    expect(Object.keys(schema.status.properties)).toEqual(
      expect.arrayContaining(['replicas', 'observedGeneration', 'conditions']),
    );
    expect(schema.spec.required).toContain('image');
    expect(schema.spec.properties.replicas.default).toBe(1);
    expect(schema.spec.properties.tier.default).toBe('dev');
    expect(getJson(['get', 'namespace', NS]).status.phase).toBe('Active');
  });
});

describe('L1 observe', () => {
  it('checkout has the lab spec; reconcile.sh is installed and executable', () => {
    expect(ws('checkout').spec).toEqual({ image: 'nginx:1.27', replicas: 3, tier: 'dev' });
    const script = path.join(labDir, 'reconcile.sh');
    expect(() => fs.accessSync(script, fs.constants.X_OK)).not.toThrow();
    const source = fs.readFileSync(script, 'utf8');
    expect(source).toMatch(/kubectl.* get webservice/s);
    expect(source).toContain('get configmap');
  });

  it('observe.json is {desired, actual} and desired.image is exactly the spec', () => {
    const observed = readJson('observe.json');
    expect(observed).toHaveProperty('desired');
    expect(observed).toHaveProperty('actual');
    expect(observed.desired.image).toBe(ws('checkout').spec.image);
  });
});

describe('L2 decide', () => {
  it('decision-1.json: create, with a reason and a target', () => {
    const d = readJson('decision-1.json');
    expect(d.action).toBe('create');
    expect(typeof d.reason).toBe('string');
    expect(d.reason.length).toBeGreaterThan(0);
    expect(d.target).toBe('configmap/checkout-desired');
  });
});

describe('L3 act', () => {
  it('checkout-desired: data.image from the CR, ownerReferences[0].uid = checkout uid, managed-by label', () => {
    const cm = getJson(['get', 'configmap', 'checkout-desired', '-n', NS]);
    const parent = ws('checkout');
    expect(cm.data.image).toBe(parent.spec.image);
    expect(cm.metadata.ownerReferences[0].uid).toBe(parent.metadata.uid);
    expect(cm.metadata.labels[MANAGED_BY_LABEL]).toBe(MANAGED_BY_VALUE);
  });
});

describe('L4 idempotency', () => {
  it('rv-before.txt equals rv-after.txt, and decision-2.json is a noop', () => {
    const before = fs.readFileSync(out('rv-before.txt'), 'utf8');
    expect(before).toMatch(/^\d+$/);
    expect(fs.readFileSync(out('rv-after.txt'), 'utf8')).toBe(before);
    expect(readJson('decision-2.json').action).toBe('noop');
  });
});

describe('L5 status', () => {
  it('Ready=True, observedGeneration = generation, replicas = spec.replicas', () => {
    const parent = ws('checkout');
    expect(ready(parent).status).toBe('True');
    expect(parent.status.observedGeneration).toBe(parent.metadata.generation);
    expect(parent.status.replicas).toBe(parent.spec.replicas);
  });

  it('the script writes status with --subresource=status', () => {
    const source = fs.readFileSync(path.join(labDir, 'reconcile.sh'), 'utf8');
    expect(source).toMatch(/patch webservice .*--subresource=status --type=merge/);
  });
});

describe('L6 requeue', () => {
  it('requeue.json: requeue after a whole number of seconds, not an error', () => {
    const r = readJson('requeue.json');
    expect(r.action).toBe('requeue');
    expect(Number.isInteger(r.after_seconds)).toBe(true);
    expect(r.after_seconds).toBeGreaterThan(0);
    expect(r.is_error).toBe(false);
  });

  it('backoff-note.txt explains exponential backoff, and the log flood and queue starvation', () => {
    const note = fs.readFileSync(out('backoff-note.txt'), 'utf8');
    expect(note).toMatch(/exponential/i);
    expect(note).toMatch(/flood/i);
    expect(note).toMatch(/starve/i);
  });
});

describe('L7 finalizer', () => {
  it('terminating.json shows deletionTimestamp and the finalizer', () => {
    const t = readJson('terminating.json');
    expect(t.metadata.name).toBe('ephemeral');
    expect(t.metadata.deletionTimestamp).toBeTruthy();
    expect(t.metadata.finalizers).toContain(FINALIZER);
  });

  it('cleanup.txt says what was cleaned; the child and ephemeral are gone', () => {
    expect(fs.readFileSync(out('cleanup.txt'), 'utf8')).toContain('configmap/ephemeral-desired');
    expect(tryGetJson(['get', 'configmap', 'ephemeral-desired', '-n', NS])).toBeNull();
    expect(tryGetJson(['get', 'webservice', 'ephemeral', '-n', NS])).toBeNull();
  });
});

describe('L8 one pass with a report', () => {
  it('reconcile-report.json: items {name, action}, summary.noop, converged', () => {
    const report = readJson('reconcile-report.json');
    const items: { name: string; action: string }[] = report.items;
    expect(items.map((i) => i.name).sort()).toEqual(['billing', 'checkout', 'search']);
    for (const item of items) expect(['create', 'update', 'noop', 'requeue']).toContain(item.action);
    expect(report.summary.noop).toBe(items.filter((i) => i.action === 'noop').length);
    expect(report.converged).toBe(true);
  });

  it('all three CRs have status.observedGeneration == metadata.generation', () => {
    for (const name of ['checkout', 'billing', 'search']) {
      const parent = ws(name);
      expect(parent.status.observedGeneration).toBe(parent.metadata.generation);
    }
  });
});

describe('nothing is hard-coded', () => {
  const reconcile = () =>
    spawnSync(path.join(labDir, 'reconcile.sh'), ['checkout', NS], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${path.join(ROOT, 'dist')}${path.delimiter}${process.env.PATH}` },
    });
  const childRv = () => getJson(['get', 'configmap', 'checkout-desired', '-n', NS]).metadata.resourceVersion;

  it('a new image is an update; child and status follow; the next run is a noop that moves nothing', () => {
    kubectl([
      'patch',
      'webservice',
      'checkout',
      '-n',
      NS,
      '--type=merge',
      '-p',
      '{"spec":{"image":"nginx:1.29-alpine"}}',
    ]);
    const first = reconcile();
    expect(first.status).toBe(0);
    expect(readJson('decision.json')).toMatchObject({ action: 'update', target: 'configmap/checkout-desired' });
    expect(readJson('observe.json').desired.image).toBe('nginx:1.29-alpine');
    expect(getJson(['get', 'configmap', 'checkout-desired', '-n', NS]).data.image).toBe('nginx:1.29-alpine');
    const parent = ws('checkout');
    expect(parent.metadata.generation).toBe(2);
    expect(parent.status.observedGeneration).toBe(2);
    expect(ready(parent)).toMatchObject({ status: 'True', observedGeneration: 2 });

    const parentRv = parent.metadata.resourceVersion;
    const before = childRv();
    const second = reconcile();
    expect(second.status).toBe(0);
    expect(readJson('decision.json').action).toBe('noop');
    expect(childRv()).toBe(before);
    expect(ws('checkout').metadata.resourceVersion).toBe(parentRv);
  });
});
