// Images whose pods misbehave on purpose on a plane with workloads: the plane's KWOK stages
// (scripts/controlplane/kwok-faulty-image-stages.yaml) single them out, and make every other
// image's pods Running and Ready. Only a container of such an image misbehaves; the pod's other
// containers run and are ready. No registry serves them: a real cluster never runs them.

/** Its pod runs (phase Running), but its container is never ready: the pod is never Ready. */
export const NEVER_READY_IMAGE = 'kwok.invalid/never-ready:1';

/**
 * Its pod runs (phase Running) and is never Ready: its container restarts every 2s (its
 * restartCount grows, its state waiting CrashLoopBackOff) for as long as the pod lives.
 */
export const CRASH_LOOP_IMAGE = 'kwok.invalid/crash-loop:1';
