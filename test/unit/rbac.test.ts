// RBAC and the leader fence follow the kind table: the ClusterRoles grant what reconciling
// every kind of child and what check reviews need, and the fence matches every write the
// controller may make. That the files hold what the table makes: scripts/rbac/rules.test.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import {
  Access,
  COMMANDS,
  COMMAND_ACCESS,
  CONFIG_ACCESS,
  SECRET_SNAPSHOT_ACCESS,
  WORKLOAD_ACCESS,
  describeAccess,
} from '../../src/check/access';
import { CHILD_KINDS, CONFIG_READ_KINDS, rowVerbs } from '../../src/core/kinds';
import { GROUP } from '../../src/core/model';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const fromRepo = (file: string) => (yaml.loadAll(read(file)) as any[]).filter(Boolean);

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface FenceRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
}

const clusterRole = (file: string) =>
  fromRepo(file).find((object) => object.kind === 'ClusterRole') as { rules: Rule[] };
const ROLES: [string, Rule[]][] = ['crds/rbac/webservice-reconciler.yaml', 'deploy/10-rbac.yaml'].map((file) => [
  file,
  clusterRole(file).rules,
]);
const CONTROLLER_RULES = clusterRole('deploy/10-rbac.yaml').rules;
const FENCE_RULES = fromRepo('deploy/15-leader-fence.yaml').find(
  (object) => object.kind === 'ValidatingAdmissionPolicy',
).spec.matchConstraints.resourceRules as FenceRule[];

/** The admission operation of each verb that writes. */
const OPERATION: Record<string, string | undefined> = {
  create: 'CREATE',
  update: 'UPDATE',
  patch: 'UPDATE',
  delete: 'DELETE',
};

describe('RBAC follows the kind table', () => {
  it.each(ROLES)('%s grants exactly what reconciling every kind of child needs', (_file, rules) => {
    // Each kind: what its rows write (kinds.ts' rowVerbs), and what reading the config the pods
    // read needs (CONFIG_READ_KINDS).
    for (const row of CHILD_KINDS) {
      const granted = rules.filter((r) => r.apiGroups.includes(row.group) && r.resources.includes(row.resource));
      const config = CONFIG_READ_KINDS.filter((kind) => kind.group === row.group && kind.resource === row.resource);
      const needed = CHILD_KINDS.filter((other) => other.resource === row.resource).flatMap(rowVerbs);
      expect({ kind: row.kind, verbs: granted.flatMap((r) => r.verbs).sort() }).toEqual({
        kind: row.kind,
        verbs: [...new Set([...needed, ...config.flatMap((kind) => kind.verbs)])].sort(),
      });
    }
    // And nothing to create of a kind that is neither a child nor config (the config key), but Events.
    const ours = new Set([...CHILD_KINDS, ...CONFIG_READ_KINDS].map((row) => `${row.group}/${row.resource}`));
    for (const rule of rules.filter((r) => r.verbs.includes('create') && !r.apiGroups.includes(GROUP))) {
      for (const group of rule.apiGroups) {
        for (const resource of rule.resources.filter((r) => r !== 'events')) {
          expect(ours).toContain(`${group}/${resource}`);
        }
      }
    }
  });

  it.each(ROLES)('%s grants every access that check reviews', (_file, rules) => {
    const granted = (access: Access) => {
      const resource = access.subresource ? `${access.resource}/${access.subresource}` : access.resource;
      return rules.some(
        (r) => r.apiGroups.includes(access.group) && r.resources.includes(resource) && r.verbs.includes(access.verb),
      );
    };
    const reviewed = [
      ...COMMANDS.flatMap((command) => COMMAND_ACCESS[command]),
      ...WORKLOAD_ACCESS,
      ...SECRET_SNAPSHOT_ACCESS,
      ...CONFIG_ACCESS,
    ];
    expect(reviewed.filter((access) => !granted(access)).map(describeAccess)).toEqual([]);
  });

  it('and check reviews each kind of child', () => {
    for (const row of CHILD_KINDS) {
      const reviewed = [...COMMAND_ACCESS.apply, ...WORKLOAD_ACCESS, ...SECRET_SNAPSHOT_ACCESS].filter(
        (a) => a.group === row.group && a.resource === row.resource,
      );
      expect(reviewed.length).toBeGreaterThan(0);
    }
  });
});

describe('the leader fence', () => {
  const fenced = (group: string, resource: string, operation: string, version?: string) =>
    FENCE_RULES.some(
      (r) =>
        r.apiGroups.includes(group) &&
        r.resources.includes(resource) &&
        r.operations.includes(operation) &&
        (version === undefined || r.apiVersions.includes(version) || r.apiVersions.includes('*')),
    );

  it("matches every write the controller's ClusterRole allows", () => {
    const unfenced = CONTROLLER_RULES.flatMap((rule) =>
      rule.apiGroups.flatMap((group) =>
        rule.resources
          // An authorization check of ownerReferences' blockOwnerDeletion, never a request.
          .filter((resource) => `${group}/${resource}` !== `${GROUP}/webservices/finalizers`)
          .flatMap((resource) =>
            rule.verbs
              .filter((verb) => OPERATION[verb] && !fenced(group, resource, OPERATION[verb]))
              .map((verb) => `${verb} ${group}/${resource}`),
          ),
      ),
    );
    expect(unfenced).toEqual([]);
  });

  it('matches every write of every kind of child, at the API version the table reads it at', () => {
    const unfenced = CHILD_KINDS.flatMap((row) =>
      rowVerbs(row)
        .filter((verb) => {
          const operation = OPERATION[verb];
          return operation && !fenced(row.group, row.resource, operation, row.apiVersion.split('/').pop());
        })
        .map((verb) => `${verb} ${row.kind}`),
    );
    expect(unfenced).toEqual([]);
  });
});
