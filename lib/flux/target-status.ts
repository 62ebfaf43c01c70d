// What we know about one target after reading its app object from the leaf cluster.

export interface TargetStatus {
  /**
   * The revision the target runs now: the chart version of the deployed Helm release for a HelmRelease, the
   * source revision of the last successful apply for a Kustomization. Absent when nothing is deployed.
   */
  revision?: string;
  /** Running `revision` and healthy by Flux's own rules (DESIGN §5, flux-formats §3.5 and §4.3). */
  healthy: boolean;
  /**
   * The controller has finished with the object's current spec: nothing it reports is about to change without a
   * new spec or a new source revision. An unsettled target is checked again shortly.
   */
  settled: boolean;
  /** One line for a person: why the target is or is not healthy. */
  reason: string;
  /** Set when the object could not be read (cluster unreachable, forbidden, not found): nothing above is known. */
  error?: string;
}

/** The status of a target whose app object could not be read. */
export function unreadableTarget(error: string): TargetStatus {
  return { healthy: false, settled: true, reason: error, error };
}
