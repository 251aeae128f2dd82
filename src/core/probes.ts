// The ports the workload's probes reach. By name, a probe reaches a port of its own container
// (the kubelet looks no further), and ours has http (spec.workload.port) and those of
// spec.workload.ports: any other name can never resolve, so it is refused. By number, it
// reaches whatever listens on the pod's IP, a sidecar included: a number that no container
// declares is likely a mistake, but not surely one, so it is a warning. Pure.
import type { Deployment, Json, WorkloadSpec } from './model';
import { CONTAINER_NAME, PORT_NAME, workloadPorts } from './pod';

/** A warning about the spec: the server takes it, but it will likely not work as meant. */
export interface Warning {
  /** CamelCase, as the Warning Event's reason. */
  reason: string;
  message: string;
  /** The live Deployment does not have it yet: the write that brings it says so, in one Warning Event. */
  new?: true;
}

const PROBES = ['readinessProbe', 'livenessProbe', 'startupProbe'] as const;
/** The probe handlers that reach a port: httpGet and tcpSocket by number or name, grpc by number. */
const HANDLERS = ['httpGet', 'tcpSocket', 'grpc'] as const;
const UNDECLARED_PROBE_PORT = 'UndeclaredProbePort';

const asObject = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

/** The ports the probes of a container (or of spec.workload, which has the same fields) reach, and where. */
function probePorts(container: Json): { where: string; port: number | string }[] {
  return PROBES.flatMap((probe) =>
    HANDLERS.flatMap((handler) => {
      const port = asObject(asObject(container[probe])?.[handler])?.port;
      return typeof port === 'number' || typeof port === 'string' ? [{ where: `${probe}.${handler}.port`, port }] : [];
    }),
  );
}

/** Why each probe port given by name can never resolve: `readinessProbe.httpGet.port "metrics" names no port …`. */
export function unresolvedProbePorts(workload: Json): string[] {
  const port = workload.port;
  const more = (Array.isArray(workload.ports) ? (workload.ports as Json[]) : []).map((p) => p.name);
  const names = [...(port !== undefined ? [PORT_NAME] : []), ...more];
  return probePorts(workload).flatMap(({ where, port: name }) => {
    if (typeof name !== 'string' || names.includes(name)) return [];
    const why =
      more.length > 0
        ? `the container's ports are named ${names.join(', ')}`
        : port === undefined
          ? `the pod has no port (spec.workload.port would be named ${PORT_NAME})`
          : `the container's one port, spec.workload.port, is named ${PORT_NAME}`;
    return [`${where} "${name}" names no port: ${why}`];
  });
}

/** The probe ports by number that none of these ports of the pod is. */
function undeclared(container: Json, podPorts: number[]): string[] {
  const ports = podPorts.length > 0 ? `its ports: ${podPorts.join(', ')}` : 'it declares none';
  return probePorts(container).flatMap(({ where, port }) =>
    typeof port === 'number' && !podPorts.includes(port)
      ? [`${where} ${port} is not a port of the pod (${ports}): the probe fails unless a container listens on it`]
      : [],
  );
}

function containerPorts(containers: Json[]): number[] {
  const ports = containers.flatMap((c) =>
    (Array.isArray(c.ports) ? (c.ports as Json[]) : []).flatMap((p) =>
      typeof p.containerPort === 'number' ? [p.containerPort] : [],
    ),
  );
  return [...new Set(ports)].sort((a, b) => a - b);
}

/**
 * The spec's probes that reach, by number, a port that no container of the pod declares: its
 * own port, or one of a container someone else added to the live Deployment (a sidecar). Each
 * is new when the live Deployment's own probes and ports do not already say the same.
 */
export function probePortWarnings(workload: WorkloadSpec, live: Deployment | null): Warning[] {
  const liveContainers = (live?.spec?.template?.spec?.containers ?? []) as Json[];
  const others = liveContainers.filter((c) => c.name !== CONTAINER_NAME);
  // web's own ports, and the spec's sidecars', which listen on the pod's IP for as long as it runs.
  const own = [
    { ports: workloadPorts(workload).map(({ port }) => ({ containerPort: port })) },
    ...(workload.sidecars ?? []),
  ];
  const current = undeclared(workload as Json, containerPorts([...own, ...others]));
  const liveWeb = liveContainers.find((c) => c.name === CONTAINER_NAME);
  const before = liveWeb ? undeclared(liveWeb, containerPorts(liveContainers)) : [];
  return current.map((message) => ({
    reason: UNDECLARED_PROBE_PORT,
    message,
    ...(before.includes(message) ? {} : { new: true as const }),
  }));
}
