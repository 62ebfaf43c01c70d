// What a promotion is based on, as the Promoter port receives it (docs/evidence.md): the decision builds it
// (evidence.ts), the pull-request strategy writes it below Weave's block. Part of the decision's vocabulary, so
// lib/promotion imports it from here and lib/decision imports nothing above it.

export interface PromotionEvidence {
  /** The environment the candidate comes from, or the source object (`ImagePolicy apps/podinfo on …`). */
  from: string;
  /** Each target of that environment as observed (none for a source object). */
  targets: EvidenceTarget[];
  /** The soak the environment served (`30m`), when it has one. */
  soak?: string;
  /** Its verification checks' last results, when it has checks (docs/verification.md). */
  checks?: EvidenceCheck[];
  /**
   * The other environments an environment with several predecessors follows (docs/environment-graphs.md), each as
   * observed: the candidate comes from all of them.
   */
  also?: PromotionEvidence[];
}

export interface EvidenceCheck {
  name: string;
  kind: string;
  verdict: string;
  /** What the check saw: `podinfo-5xx OK`, `0.002 (below 0.01 required)`, `HTTP 200`. */
  value: string;
  /** ISO 8601. */
  checkedAt: string;
}

export interface EvidenceTarget {
  name: string;
  revision?: string;
  phase: string;
  /** ISO 8601: since when it has been healthy on the revision, as the verifier recorded it. */
  healthySince?: string;
}
