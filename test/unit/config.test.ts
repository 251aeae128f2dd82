// The config the pods read: which Secrets and ConfigMaps (core/config.ts), how a change of their
// content rolls the pods once and nothing else does, and how the shell digests them without
// letting a digest confirm a value (engine/config.ts).
import { createHash } from 'node:crypto';
import { CONFIG_DIGEST_ANNOTATION, configReferences } from '../../src/core/config';
import { Decision, decide } from '../../src/core/decide';
import { ConfigState, WebService, WorkloadSpec } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { computeStatus } from '../../src/core/status';
import { parseSyncInput } from '../../src/core/validate';
import { CONFIG_KEY_SECRET, ConfigReader } from '../../src/engine/config';
import { ForbiddenError } from '../../src/kube/errors';
import { FakeApi } from '../support/fake-api';
import { convergedWorkload } from '../support/writes';
import { appliedDeployment, decideFixture, decisionOf } from '../support/decide-fixtures';

const READS_CONFIG: WorkloadSpec = {
  port: 8080,
  env: [
    { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
    { name: 'FLAGS', valueFrom: { configMapKeyRef: { name: 'flags', key: 'list', optional: true } } },
  ],
  envFrom: [{ configMapRef: { name: 'settings' } }],
  files: [{ mountPath: '/etc/shop', configMap: 'files' }],
};

const STATES: ConfigState[] = [
  { kind: 'Secret', name: 'db', digest: 'aaaa' },
  { kind: 'ConfigMap', name: 'flags', digest: null },
  { kind: 'ConfigMap', name: 'settings', digest: 'bbbb' },
  { kind: 'ConfigMap', name: 'files', digest: 'cccc' },
];

/** The converged workload fixture with this workload, applied with this config and rolled out. */
const convergedWith = (workload: WorkloadSpec, config: ConfigState[]) =>
  convergedWorkload(decideFixture('noop-workload-converged'), workload, { config });

const withDigest = (states: ConfigState[], name: string, digest: string | null) =>
  states.map((s) => (s.name === name ? { ...s, digest } : s));

const templateDigest = (decision: Decision) =>
  appliedDeployment(decision).spec?.template?.metadata?.annotations?.[CONFIG_DIGEST_ANNOTATION];

describe('the config the pods read', () => {
  it('is every Secret and ConfigMap of env, envFrom and files, merged by object, with the keys read', () => {
    const workload: WorkloadSpec = {
      env: [
        { name: 'A', valueFrom: { secretKeyRef: { name: 'db', key: 'user' } } },
        { name: 'B', valueFrom: { secretKeyRef: { name: 'db', key: 'password', optional: true } } },
        { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      ],
      envFrom: [{ secretRef: { name: 'tokens', optional: true } }],
      files: [
        { mountPath: '/etc/a', configMap: 'files', items: [{ key: 'a.conf', path: 'a' }] },
        { mountPath: '/etc/db', secret: 'db', items: [{ key: 'ca', path: 'ca.crt' }], restartOnChange: false },
      ],
    };
    expect(configReferences(workload)).toEqual([
      { kind: 'ConfigMap', name: 'files', keys: ['a.conf'], optional: false, rolls: true, readBy: ['files /etc/a'] },
      {
        kind: 'Secret',
        name: 'db',
        keys: ['ca', 'password', 'user'],
        optional: false,
        rolls: true,
        readBy: ['env A', 'env B', 'files /etc/db'],
      },
      { kind: 'Secret', name: 'tokens', keys: null, optional: true, rolls: true, readBy: ['envFrom'] },
    ]);
    expect(configReferences({ ...workload, restartOnConfigChange: false }).every((r) => !r.rolls)).toBe(true);
  });

  it('counts what the sidecars and init containers read too, saying whose reading it is', () => {
    const workload: WorkloadSpec = {
      sidecars: [
        {
          name: 'log',
          image: 'shipper:1',
          env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'log', key: 't' } } }],
        },
      ],
      initContainers: [{ name: 'migrate', image: 'migrate:1', envFrom: [{ configMapRef: { name: 'db-schema' } }] }],
    };
    expect(configReferences(workload)).toEqual([
      {
        kind: 'ConfigMap',
        name: 'db-schema',
        keys: null,
        optional: false,
        rolls: true,
        readBy: ['envFrom of init container migrate'],
      },
      { kind: 'Secret', name: 'log', keys: ['t'], optional: false, rolls: true, readBy: ['env TOKEN of sidecar log'] },
    ]);
  });

  it('rolls the pods once when what a sidecar reads changes', () => {
    const workload: WorkloadSpec = {
      ...READS_CONFIG,
      sidecars: [{ name: 'log', image: 'shipper:1', envFrom: [{ secretRef: { name: 'log-token' } }] }],
    };
    const states: ConfigState[] = [...STATES, { kind: 'Secret', name: 'log-token', digest: 'ffff' }];
    const before = convergedWith(workload, states);
    expect(decisionOf(before).action).toBe('noop');
    const decision = decisionOf({ ...before, config: withDigest(states, 'log-token', '0000') });
    expect(decision.action).toBe('update');
    expect(decision.reason).toContain('(secret/log-token changed)');
  });

  it('is converged when its content is as the pods started with: no write', () => {
    const decision = decisionOf(convergedWith(READS_CONFIG, STATES));
    expect(decision.action).toBe('noop');
  });

  it('rolls the pods once when the content of a Secret they read changes', () => {
    const before = convergedWith(READS_CONFIG, STATES);
    const rotated = { ...before, config: withDigest(STATES, 'db', 'dddd') };
    const decision = decisionOf(rotated);
    expect(decision.action).toBe('update');
    // Each object by name with its keyed digest: a change names what changed, and only names.
    expect(templateDigest(decision)).toBe(
      'configmap/files=cccc,configmap/flags=absent,configmap/settings=bbbb,secret/db=dddd',
    );
    expect(decision.reason).toContain(
      'spec.template.metadata.annotations.webservice.labhub.io/config-digest (secret/db changed)',
    );
    // Applied, it is converged: the change rolled the pods once.
    expect(decisionOf(convergedWith(READS_CONFIG, rotated.config)).action).toBe('noop');
  });

  it('rolls them for a mounted ConfigMap and for envFrom too', () => {
    const before = convergedWith(READS_CONFIG, STATES);
    for (const name of ['files', 'settings']) {
      expect(decisionOf({ ...before, config: withDigest(STATES, name, 'eeee') }).action).toBe('update');
    }
  });

  it('rolls nothing when the pods opted out, for the WebService or for the mount', () => {
    const optedOut = { ...READS_CONFIG, restartOnConfigChange: false };
    const before = convergedWith(optedOut, STATES);
    expect(decisionOf({ ...before, config: withDigest(STATES, 'db', 'dddd') }).action).toBe('noop');
    const mountOptedOut = {
      ...READS_CONFIG,
      files: [{ mountPath: '/etc/shop', configMap: 'files', restartOnChange: false }],
    };
    const mounted = convergedWith(mountOptedOut, STATES);
    expect(decisionOf({ ...mounted, config: withDigest(STATES, 'files', 'ffff') }).action).toBe('noop');
    expect(decisionOf({ ...mounted, config: withDigest(STATES, 'db', 'dddd') }).action).toBe('update');
  });

  it('keeps the live digest where the config was not read (a watch that reads none)', () => {
    const { config: _unread, ...input } = convergedWith(READS_CONFIG, STATES);
    expect(decisionOf(input).action).toBe('noop');
  });

  it('says which Secret is missing, by name, Stalled, when the pods cannot start without it', () => {
    const input = convergedWith(READS_CONFIG, withDigest(STATES, 'db', null));
    const observation = observe(parseSyncInput(input));
    const decision = decide(observation);
    const status = computeStatus(observation, decision, { kind: 'applied' }, '2026-12-03T00:00:00Z').status!;
    const conditions = Object.fromEntries(status.conditions!.map((c) => [c.type, c]));
    expect(conditions.Ready).toMatchObject({ status: 'False', reason: 'ConfigNotFound' });
    expect(conditions.Ready.message).toBe('secret/db not found; the pods read it (env DB_PASSWORD)');
    expect(conditions.Stalled).toMatchObject({ status: 'True', reason: 'ConfigNotFound' });
    // The optional ConfigMap flags is missing too, and blocks nothing.
    expect(conditions.Ready.message).not.toContain('flags');
  });
});

describe('the digests of the config, in the shell', () => {
  const shop = (workload: WorkloadSpec = READS_CONFIG): WebService => ({
    apiVersion: 'apps.labhub.io/v1',
    kind: 'WebService',
    metadata: { name: 'shop', namespace: 'ns', uid: 'u1' },
    spec: { image: 'shop:1', workload },
  });
  const objects = () => [
    {
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'ns', resourceVersion: '1' },
      data: { password: 'aHVudGVyMg==' },
    },
    { kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'ns', resourceVersion: '2' }, data: { a: '1' } },
    { kind: 'ConfigMap', metadata: { name: 'files', namespace: 'ns', resourceVersion: '3' }, data: { f: 'x' } },
  ];

  it('makes the namespace key once, as a writer, and digests the same content the same way', async () => {
    const api = new FakeApi({ others: objects() });
    const first = await new ConfigReader(api, { makeKey: true }).statesFor(shop());
    expect(api.writes.map((w) => `${w.verb} ${w.resource} ${w.name}`)).toEqual([`create secrets ${CONFIG_KEY_SECRET}`]);
    const again = await new ConfigReader(api, { makeKey: true }).statesFor(shop());
    expect(again).toEqual(first);
    expect(api.writes).toHaveLength(1);
    expect(first).toContainEqual({ kind: 'ConfigMap', name: 'flags', digest: null });
  });

  it('digests content only: a label edit changes nothing, a new value changes the Secret alone', async () => {
    const api = new FakeApi({ others: objects() });
    const reader = () => new ConfigReader(api, { makeKey: true });
    const before = await reader().statesFor(shop());
    api.changeOther('Secret', 'ns', 'db', (s) => {
      s.metadata.labels = { rotated: 'soon' };
      s.metadata.resourceVersion = '9';
    });
    expect(await reader().statesFor(shop())).toEqual(before);
    api.changeOther('Secret', 'ns', 'db', (s) => (s.data.password = 'b3RoZXI='));
    const after = await reader().statesFor(shop());
    expect(after!.filter((s, i) => s.digest !== before![i].digest).map((s) => s.name)).toEqual(['db']);
  });

  it('lets nobody confirm a guess of a value: keyed per namespace, never a plain hash', async () => {
    const elsewhere = objects().map((o) => ({ ...o, metadata: { ...o.metadata, namespace: 'other' } }));
    const api = new FakeApi({ others: [...objects(), ...elsewhere] });
    const reader = new ConfigReader(api, { makeKey: true });
    const here = await reader.statesFor(shop());
    const there = await reader.statesFor({ ...shop(), metadata: { name: 'shop', namespace: 'other' } });
    const db = (states: ConfigState[] | undefined) => states!.find((s) => s.name === 'db')!.digest!;
    expect(db(here)).not.toBe(db(there));
    const guesses = ['hunter2', 'aHVudGVyMg==', JSON.stringify(['Secret', 'db', [['password', 'aHVudGVyMg==']]])];
    for (const guess of guesses) {
      expect(createHash('sha256').update(guess).digest('hex')).not.toContain(db(here));
    }
  });

  it('makes no key as a reader, nor in a client dry run: it keeps a random one to itself', async () => {
    for (const api of [new FakeApi({ others: objects() }), new FakeApi({ others: objects(), dryRun: 'client' })]) {
      const makeKey = api.dryRun === 'client';
      await new ConfigReader(api, { makeKey }).statesFor(shop());
      expect(api.writes).toEqual([]);
    }
  });

  it('names the Secret that cannot be read, and writes nothing', async () => {
    const api = new FakeApi({ others: objects(), forbidden: ['Secret'] });
    await expect(new ConfigReader(api, { makeKey: true }).statesFor(shop())).rejects.toThrow(ForbiddenError);
    await expect(new ConfigReader(api, { makeKey: true }).statesFor(shop())).rejects.toThrow(
      /^webservice\/shop reads secret\/db: secrets "db" is forbidden/,
    );
    expect(api.writes).toEqual([]);
  });

  it('reads nothing again while watched, until the watch says an object changed', async () => {
    const api = new FakeApi({ others: objects() });
    const reader = new ConfigReader(api, { makeKey: true, watched: () => true });
    await reader.statesFor(shop());
    const reads = api.requests.length;
    await reader.statesFor(shop());
    expect(api.requests.length).toBe(reads);
    expect(reader.changed('Secret', 'ns', 'db', '1')).toBe(false);
    expect(reader.changed('Secret', 'ns', 'db', '2')).toBe(true);
    await reader.statesFor(shop());
    expect(api.calls.slice(reads)).toEqual(['get secrets']);
  });

  it('reads a kept object again once it is old: a lost event costs a bounded delay', async () => {
    const api = new FakeApi({ others: objects() });
    let now = 0;
    const reader = new ConfigReader(api, { makeKey: true, watched: () => true, maxAgeMs: 300_000, now: () => now });
    await reader.statesFor(shop());
    const reads = api.requests.length;
    now = 299_999;
    await reader.statesFor(shop());
    expect(api.requests.length).toBe(reads);
    now = 300_000;
    await reader.statesFor(shop());
    // db, and the ConfigMaps settings, files and flags (missing: its absence is read again too).
    expect(api.calls.slice(reads).sort()).toEqual([
      'get configmaps',
      'get configmaps',
      'get configmaps',
      'get secrets',
    ]);
  });
});
