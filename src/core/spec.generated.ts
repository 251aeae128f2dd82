// Made by npm run crd:generate from the WebService's schema (src/core/spec-schema.ts): do not edit.

/** A Kubernetes type the CRD carries with its own schema (EnvVar, Probe...): validated at admission. */
type KubeValue = Record<string, unknown>;

export interface WebServiceSpec {
  /**
   * Container image reference, e.g. nginx:1.27 or registry.example.com/team/app@sha256:…. Only
   * image-reference characters are allowed: no whitespace, control characters or shell
   * metacharacters.
   */
  image: string;
  replicas?: number;
  tier?: string;
  /** Names of WebServices in the same namespace that must be Ready first. */
  dependsOn?: string[];
  /**
   * A public endpoint for the workload's Service, named after the WebService: an Ingress
   * (networking.k8s.io/v1), or with a gateway an HTTPRoute (gateway.networking.k8s.io/v1) attached
   * to that Gateway. Needs spec.workload.port. The WebService's Exposed condition says whether an
   * ingress controller or a Gateway has taken it up.
   */
  expose?: Expose;
  /**
   * How a new revision of the pods reaches users. Unset: the Deployment's own rolling update. With
   * canary: a second Deployment, <name>-canary, runs the new revision beside the stable pods and
   * takes a growing share of the traffic, step by step, and the rollout aborts by itself when its
   * pods cannot be made or are not ready in time. Needs spec.workload.
   */
  rollout?: RolloutSpec;
  /**
   * Run the image as a Deployment named after the WebService; with a port, also a ClusterIP
   * Service of the same name.
   */
  workload?: WorkloadSpec;
}

export interface WebServiceStatus {
  replicas?: number;
  /** With spec.workload, the label selector of the Deployment's pods. */
  selector?: string;
  /** With spec.workload, ready/desired pods, e.g. 2/3. */
  ready?: string;
  /**
   * With spec.expose, the address users reach: https with an Ingress with tls, else http (a
   * Gateway's listeners are not read), on host, with the path when it is not /.
   */
  url?: string;
  /** With spec.workload, the revision that every pod runs (the last rollout that completed). */
  currentRevision?: number;
  /** With spec.workload, the revision that the pods are rolled out to. */
  updateRevision?: number;
  /** With spec.rollout, while a canary runs: where it stands. */
  rollout?: RolloutStatus;
  observedGeneration?: number;
  conditions?: Condition[];
}

/**
 * A public endpoint for the workload's Service, named after the WebService: an Ingress
 * (networking.k8s.io/v1), or with a gateway an HTTPRoute (gateway.networking.k8s.io/v1) attached
 * to that Gateway. Needs spec.workload.port. The WebService's Exposed condition says whether an
 * ingress controller or a Gateway has taken it up.
 */
export interface Expose {
  /** The DNS name the endpoint answers to, e.g. shop.example.com. */
  host: string;
  /**
   * More DNS names the endpoint answers to, beside host (which status.url reports): each gets a
   * rule of the Ingress, and with tls the certificate's hosts list them; an HTTPRoute's hostnames.
   */
  additionalHosts?: string[];
  /**
   * Annotations of the Ingress or the HTTPRoute (an issuer of cert-manager, an ingress
   * controller's settings). Only these are the WebService's: removed from the spec, they go, and
   * annotations that others set stay.
   */
  annotations?: Record<string, string>;
  /** The path prefix routed to the Service; unset, /. */
  path?: string;
  /**
   * Ingress only: HTTPS on the host, with the certificate of this kubernetes.io/tls Secret in the
   * WebService's namespace.
   */
  tls?: {
    secretName: string;
  };
  /**
   * The Ingress' class (which ingress controller serves it); unset, the cluster's default
   * IngressClass. Unset with no gateway too: an Ingress is the default exposure.
   */
  ingressClassName?: string;
  /**
   * Expose through this Gateway with an HTTPRoute instead of an Ingress (where the Gateway API's
   * CRDs are installed). TLS is the Gateway listener's.
   */
  gateway?: {
    name: string;
    /** The Gateway's namespace; unset, the WebService's. */
    namespace?: string;
  };
}

/**
 * How a new revision of the pods reaches users. Unset: the Deployment's own rolling update. With
 * canary: a second Deployment, <name>-canary, runs the new revision beside the stable pods and
 * takes a growing share of the traffic, step by step, and the rollout aborts by itself when its
 * pods cannot be made or are not ready in time. Needs spec.workload.
 */
export interface RolloutSpec {
  canary: {
    /**
     * In order: a weight sends that share of the traffic (percent) to the canary once its pods are
     * ready; a pause waits, for a duration or, without one, until kubectl webservice promote.
     */
    steps: CanaryStep[];
    /**
     * A query against the Prometheus-compatible API that the controller is configured with
     * (--prometheus-url, the chart's canary.prometheusURL; never an address of the WebService's),
     * evaluated at the end of each pause and before the promotion, once traffic has reached the
     * canary: a result outside min or max aborts the canary. The result must be one number: a
     * scalar, or a vector of one sample.
     */
    check?: {
      /** PromQL, e.g. the canary's share of 5xx responses over the last minute. */
      query: string;
      /** The check fails below this. */
      min?: number;
      /** The check fails above this. */
      max?: number;
    };
    /**
     * The most restarts of the canary's containers, in any one of its pods, before the rollout
     * aborts; unset, 3.
     */
    maxRestarts?: number;
    /**
     * How long a step may wait for the canary's pods to be ready before the rollout aborts; unset,
     * 600.
     */
    readyDeadlineSeconds?: number;
  };
}

/**
 * Run the image as a Deployment named after the WebService; with a port, also a ClusterIP Service
 * of the same name.
 */
export interface WorkloadSpec {
  /**
   * The container port, named http (probes may name it); with it, a ClusterIP Service on the same
   * port, named http too, and on each of ports.
   */
  port?: number;
  /**
   * More ports of the container web, beside port (named http): each by its name, which a probe may
   * name too. With port, the Service serves each of them as well, on the same number.
   */
  ports?: {
    /**
     * The port's name, as Kubernetes names ports (an IANA service name): at most 15 lowercase
     * letters, digits and '-', a letter among them; not http, which is port's.
     */
    name: string;
    port: number;
    protocol?: 'TCP' | 'UDP' | 'SCTP';
  }[];
  /**
   * The Deployment's progressDeadlineSeconds: how long a rollout may make no progress before it is
   * reported Stalled (reason ProgressDeadlineExceeded). Unset, the Kubernetes default of 600.
   */
  progressDeadlineSeconds?: number;
  /**
   * restricted: the pod and its container get what the restricted Pod Security Standard requires
   * (runAsNonRoot, no privilege escalation, every capability dropped, the RuntimeDefault seccomp
   * profile), under whatever securityContext and podSecurityContext set themselves. Unset or
   * baseline: nothing is added, so an image that runs today runs the same.
   */
  podSecurity?: 'baseline' | 'restricted';
  /** Keys of a ConfigMap or a Secret, mounted read-only as files at a path. */
  files?: FileMount[];
  /**
   * The pods' terminationGracePeriodSeconds: how long a pod has to stop, preStop hooks included,
   * from the moment it is told to until it is killed. Unset, the Kubernetes default of 30.
   */
  terminationGracePeriodSeconds?: number;
  /**
   * Volumes of the pod beside those of files: an emptyDir, a persistentVolumeClaim by its claim's
   * name, or a projected volume. The container web mounts them by name with volumeMounts; a
   * sidecar or an init container, with its own volumeMounts. A projected volume's ConfigMaps and
   * Secrets are read as they are: a change of them rolls no pod (files does that).
   */
  volumes?: {
    /** The name that mounts it: a DNS label, not starting with files-. */
    name: string;
    /** Kubernetes' Volume.emptyDir, with its schema. */
    emptyDir?: KubeValue;
    /** Kubernetes' Volume.persistentVolumeClaim, with its schema. */
    persistentVolumeClaim?: KubeValue;
    /** Kubernetes' Volume.projected, with its schema. */
    projected?: KubeValue;
  }[];
  /**
   * Containers that run beside web for the pod's whole life (a proxy, a log shipper): Kubernetes'
   * native sidecars, which the pod holds as init containers with restartPolicy Always. They start
   * first, in this order, each once the one before it has started (its startupProbe passed), then
   * the init containers, then web; they stop after web. A sidecar may have probes and lifecycle.
   */
  sidecars?: KubeValue[];
  /**
   * Containers that run to completion, one after the other in this order, before web starts (a
   * migration, say): after the sidecars have started, so that they can use them.
   */
  initContainers?: KubeValue[];
  /**
   * false: a change of the content of a Secret or ConfigMap that the pods read (env valueFrom,
   * envFrom, files) does not roll them; they see it at their next rollout. Unset: each change of
   * content rolls them once (a change of labels or annotations does not).
   */
  restartOnConfigChange?: boolean;
  /**
   * true: each Secret whose change rolls the pods is copied, as each such ConfigMap is, into an
   * immutable snapshot that its revision's pods read, so that a rollback brings back its old
   * value. Unset: the pods read the Secret itself (a snapshot is one more copy of its value).
   */
  snapshotSecrets?: boolean;
  /**
   * How many revisions (ControllerRevisions, with the config snapshots they name) are kept for
   * history and rollback, the current one included. Unset: 10.
   */
  revisionHistoryLimit?: number;
  /**
   * Labels for the pods (a team label, say); not the WebService's own, which it sets on them: the
   * recommended ones (the selector's among them) and the tier's.
   */
  podLabels?: Record<string, string>;
  /** Annotations for the pods (a service mesh's injection annotation, say). */
  podAnnotations?: Record<string, string>;
  /**
   * A NetworkPolicy named after the WebService: only its own pods, and the peers listed in from
   * (the namespaces or pods where an ingress controller's or a Gateway's proxies run), may reach
   * the pods' ports. Off when unset: a policy that forgets a client cuts it off.
   */
  networkPolicy?: {
    /** Kubernetes' NetworkPolicyIngressRule.from, with its schema. */
    from?: KubeValue[];
  };
  /**
   * A PodDisruptionBudget named after the WebService, over its pods: how many a voluntary
   * disruption (a node drain, an eviction) may take at once. Set one of maxUnavailable or
   * minAvailable, a count of pods or a percentage ("25%"). Unset: no budget.
   */
  disruption?: Disruption;
  /**
   * A HorizontalPodAutoscaler named after the WebService, aimed at its Deployment: it owns the
   * Deployment's replica count, from minReplicas to maxReplicas. Without minReplicas,
   * spec.replicas is the minimum. Unset: no autoscaler, and spec.replicas is the count.
   */
  autoscaling?: Autoscaling;
  /** Kubernetes' Container.command, with its schema. */
  command?: string[];
  /** Kubernetes' Container.args, with its schema. */
  args?: string[];
  /** Kubernetes' Container.env, with its schema. */
  env?: KubeValue[];
  /** Kubernetes' Container.envFrom, with its schema. */
  envFrom?: KubeValue[];
  /** Kubernetes' Container.resources, with its schema. */
  resources?: KubeValue;
  /** Kubernetes' Container.readinessProbe, with its schema. */
  readinessProbe?: KubeValue;
  /** Kubernetes' Container.livenessProbe, with its schema. */
  livenessProbe?: KubeValue;
  /** Kubernetes' Container.startupProbe, with its schema. */
  startupProbe?: KubeValue;
  /** Kubernetes' Container.securityContext, with its schema. */
  securityContext?: KubeValue;
  /** Kubernetes' PodSpec.securityContext, with its schema. */
  podSecurityContext?: KubeValue;
  /** Kubernetes' PodSpec.serviceAccountName, with its schema. */
  serviceAccountName?: string;
  /** Kubernetes' PodSpec.imagePullSecrets, with its schema. */
  imagePullSecrets?: KubeValue[];
  /** Kubernetes' DeploymentSpec.strategy, with its schema. */
  strategy?: KubeValue;
  /** Kubernetes' PodSpec.nodeSelector, with its schema. */
  nodeSelector?: KubeValue;
  /** Kubernetes' PodSpec.tolerations, with its schema. */
  tolerations?: KubeValue[];
  /** Kubernetes' PodSpec.affinity, with its schema. */
  affinity?: KubeValue;
  /** Kubernetes' PodSpec.topologySpreadConstraints, with its schema. */
  topologySpreadConstraints?: KubeValue[];
  /** Kubernetes' PodSpec.priorityClassName, with its schema. */
  priorityClassName?: string;
  /**
   * false: no default spread. Unset or true: with more than one replica (spec.replicas, or
   * autoscaling's maxReplicas), no topologySpreadConstraints or affinity and no
   * persistentVolumeClaim volume, the pods are spread over hosts and zones, ScheduleAnyway.
   */
  defaultSpread?: boolean;
  /** Kubernetes' Container.volumeMounts, with its schema. */
  volumeMounts?: KubeValue[];
  /** Kubernetes' Container.lifecycle, with its schema. */
  lifecycle?: KubeValue;
}

/** With spec.rollout, while a canary runs: where it stands. */
export interface RolloutStatus {
  /** The canary's revision (a ControllerRevision's name). */
  revision?: string;
  /** The stable pods' revision. */
  stableRevision?: string;
  /** The step under way (from 0); the number of steps once all are done. */
  step?: number;
  /** When the step began: a pause counts from it. */
  stepStartedAt?: string;
  /** The canary's share of the traffic, in percent. */
  weight?: number;
  /** The stable pods wanted now. */
  stableReplicas?: number;
  /** The canary's pods wanted now. */
  canaryReplicas?: number;
  /** In a pause with a duration: when it ends. */
  pauseEndsAt?: string;
  /**
   * Progressing: a weight step waits for the canary; Paused: a pause; Promoting: the stable pods
   * roll to the canary's revision; Completed; Aborted: all traffic is back on stable.
   */
  phase?: 'Progressing' | 'Paused' | 'Promoting' | 'Completed' | 'Aborted';
  /** What the rollout waits for, or why it aborted. */
  message?: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface CanaryStep {
  /** The canary's share of the traffic, in percent. */
  weight?: number;
  /** Wait: for the duration, or without one until kubectl webservice promote. */
  pause?: {
    /** How long, e.g. 30s, 5m, 1h30m. */
    duration?: string;
  };
}

export interface FileMount {
  /** An absolute path in the container, where the keys appear as files. */
  mountPath: string;
  /** The ConfigMap whose keys are mounted. */
  configMap?: string;
  /** The Secret whose keys are mounted. */
  secret?: string;
  /** Start the pod even if the ConfigMap or Secret (or a key of items) is missing. */
  optional?: boolean;
  /**
   * false: a change of the mounted keys' content does not roll the pods, for an app that reloads
   * its files itself (the kubelet updates the files in place). Unset: it rolls them once.
   */
  restartOnChange?: boolean;
  items?: KubeValue[];
}

/**
 * A PodDisruptionBudget named after the WebService, over its pods: how many a voluntary disruption
 * (a node drain, an eviction) may take at once. Set one of maxUnavailable or minAvailable, a count
 * of pods or a percentage ("25%"). Unset: no budget.
 */
export interface Disruption {
  /** At most this many of the pods (or this share of them) unavailable at once. */
  maxUnavailable?: number | string;
  /** At least this many of the pods (or this share of them) available at all times. */
  minAvailable?: number | string;
}

/**
 * A HorizontalPodAutoscaler named after the WebService, aimed at its Deployment: it owns the
 * Deployment's replica count, from minReplicas to maxReplicas. Without minReplicas, spec.replicas
 * is the minimum. Unset: no autoscaler, and spec.replicas is the count.
 */
export interface Autoscaling {
  /** The fewest pods the autoscaler keeps; unset, spec.replicas. */
  minReplicas?: number;
  /** The most pods the autoscaler makes. */
  maxReplicas: number;
  /**
   * The pods' average CPU use, as a percentage of their CPU request, that the autoscaler aims at;
   * unset, the API server's default (80).
   */
  targetCPUUtilizationPercentage?: number;
  /** Kubernetes' HorizontalPodAutoscalerSpec.metrics, with its schema. */
  metrics?: KubeValue[];
  /** Kubernetes' HorizontalPodAutoscalerSpec.behavior, with its schema. */
  behavior?: KubeValue;
}
