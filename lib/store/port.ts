// The Store port: what the functions, the CLI and the local mode need from persistent state (the entities and their
// access patterns: docs/architecture.md, "The table"). It is split by concern so that each caller depends on the
// least it needs; the DynamoDB adapter implements all.
// Correctness lives in the conditional writes behind these methods, never in timing or queue order.
import type {
  ConfigSourceDocument,
  GitopsClusterDocument,
  PipelineDocument,
  PipelineSetDocument,
} from '../config/schema.js';
import type {
  ApprovalMarker,
  HostDeploymentRecord,
  PromotionEvidence,
  PromotionRecord,
  PullRequestState,
  ServedInput,
  VerificationRecord,
} from '../decision/types.js';
import type { FreezeScope, FreezeSwitch } from '../pipeline/freeze.js';
import type { TargetStatus } from '../flux/target-status.js';
import type { AppKey, ObjectKey, Pipeline } from '../pipeline/model.js';
import type { FoundApp } from '../pipeline/pipeline-set.js';
import type { PromotionFailureKind } from '../promotion/failure-kind.js';
import type { WatchedKind } from '../config/schema.js';

export interface Page<T> {
  items: T[];
  /** Pass back to get the next page; absent on the last page. */
  cursor?: string;
}

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

// ---------------------------------------------------------------- configuration and the apps index

/** The ConfigSource that applied an object, and the commit that last changed it (docs/config-sources.md). */
export interface ObjectOwner {
  configSource: ObjectKey;
  /** Flux's form: `<branch>@sha1:<40 hex>`. */
  revision: string;
}

export interface StoredPipeline {
  /** The document as applied. */
  document: PipelineDocument;
  /** The same with defaults resolved (clusters, promotion per environment). */
  pipeline: Pipeline;
  /** Incremented each time a changed document is applied. */
  generation: number;
  /** ISO 8601. */
  appliedAt: string;
  /** Absent when applied with the CLI. */
  owner?: ObjectOwner;
}

export interface StoredCluster {
  document: GitopsClusterDocument;
  generation: number;
  appliedAt: string;
  /** Absent when applied with the CLI. */
  owner?: ObjectOwner;
}

/** One target of one pipeline (or its source) that an object belongs to: what the receiver looks up. */
export interface IndexedTarget {
  pipeline: ObjectKey;
  env: string;
  /**
   * Position of the target in its environment when the entry was written (a selected target's position moves as
   * clusters join and leave the selection; nothing depends on it).
   */
  targetIndex: number;
  /** The object is the pipeline's source (`spec.source`), not a target; `env` is the first environment. */
  source?: true;
}

/** A (cluster, app kind) pair in use, with the namespaces its targets are in: what the poller lists. */
export interface ClusterKindUsage {
  cluster: ObjectKey;
  kind: WatchedKind;
  namespaces: string[];
  /** The pipelines with targets on it. */
  pipelines: ObjectKey[];
}

/**
 * What one item of the store can hold (DynamoDB's limits; the local mode runs the same adapter). `apply` checks a
 * configuration against them before it writes anything (`checkStoreLimits` in lib/store), in a dry run too.
 */
export interface StoreLimits {
  /** Bytes per item: attribute names and values, strings in UTF-8. */
  itemBytes: number;
  /** Bytes kept below `itemBytes` when checking, for what the size computation cannot know exactly. */
  marginBytes: number;
  /** Bytes (UTF-8) of a partition key, of the table or of its index. */
  partitionKeyBytes: number;
  /** Bytes (UTF-8) of a sort key. */
  sortKeyBytes: number;
  /** Levels of nested maps and lists in an item. */
  nestingLevels: number;
}

export interface ConfigurationStore {
  /**
   * Stores a pipeline and brings the apps index in line with it: entries for targets it no longer has are removed,
   * observed statuses are kept (they belong to apps, not pipelines). Applying an unchanged document writes nothing.
   * Throws ConcurrentChangeError (errors.ts) when another apply wrote the pipeline since it was read.
   */
  applyPipeline(
    document: PipelineDocument,
    pipeline: Pipeline,
    now: Date,
    owner?: ObjectOwner,
  ): Promise<{ changed: boolean }>;
  /**
   * Removes what applies cut off part-way left in the apps index: entries and usage that no stored definition uses.
   * `applyPipeline` does this for its own pipeline; this does it for every pipeline whose interrupted apply is over
   * or older than a few minutes (`apply` calls it first). Returns how many interrupted applies it settled. Absent
   * where an apply cannot be interrupted (the in-memory store).
   */
  repairInterruptedApplies?(now: Date): Promise<number>;
  /** Removes a pipeline, its index entries, approval markers and promotion records. False when there was none. */
  deletePipeline(key: ObjectKey): Promise<boolean>;
  getPipeline(key: ObjectKey): Promise<StoredPipeline | undefined>;
  listPipelines(page?: PageRequest): Promise<Page<StoredPipeline>>;
  /**
   * Stores a cluster registration; throws ConcurrentChangeError like `applyPipeline`. Like a pipeline, it is
   * rewritten when its owning ConfigSource changes, not when only the owner's commit does.
   */
  applyCluster(document: GitopsClusterDocument, now: Date, owner?: ObjectOwner): Promise<{ changed: boolean }>;
  getCluster(key: ObjectKey): Promise<StoredCluster | undefined>;
  /**
   * Removes a cluster registration. False when there was none. Pipelines that list the cluster by clusterRef are
   * the caller's to check first (`pipelinectl delete` refuses); selected targets follow by re-applying the pipelines
   * that select it.
   */
  deleteCluster(key: ObjectKey): Promise<boolean>;
  listClusters(page?: PageRequest): Promise<Page<StoredCluster>>;
}

export interface AppsIndex {
  /** The pipeline targets an app object belongs to (one request). */
  findTargets(app: AppKey): Promise<IndexedTarget[]>;
  /** Every (cluster, kind) pair some pipeline uses, with its namespaces (one request per page of pairs). */
  listClusterKinds(): Promise<ClusterKindUsage[]>;
  /** One (cluster, kind) pair's usage, undefined when no pipeline uses it (one request, whatever the fleet's size). */
  getClusterKind(cluster: ObjectKey, kind: WatchedKind): Promise<ClusterKindUsage | undefined>;
}

// ---------------------------------------------------------------- observed target status

export interface ObservedTargetStatus {
  status: TargetStatus;
  /** ISO 8601: when a read last produced this status. */
  observedAt: string;
  /** ISO 8601: when the status last became what it is. */
  changedAt: string;
}

export interface TargetStatuses {
  getTargetStatus(app: AppKey): Promise<ObservedTargetStatus | undefined>;
  /** Statuses of many apps by `appKeyString`; missing apps are absent from the map. */
  getTargetStatuses(apps: readonly AppKey[]): Promise<Map<string, ObservedTargetStatus>>;
  /**
   * Records what a read of the app found. Writes only when the status changed (or, with `refreshAfterMs`, when the
   * stored observation is older than that), conditional on the stored value, so a redundant event costs a read.
   */
  recordTargetStatus(
    app: AppKey,
    status: TargetStatus,
    now: Date,
    options?: { refreshAfterMs?: number },
  ): Promise<RecordedStatus>;
}

/** What recording an observation did. */
export interface RecordedStatus {
  /** The stored status is now another one. */
  changed: boolean;
  /** The item was written (changed, or its observation time refreshed). */
  written: boolean;
  /** There was no status item, and this call made it. */
  created: boolean;
}

/**
 * What a poll of one (cluster, kind) last found recorded, per app: a cache that lets a steady poll skip the status
 * read of every app whose listed status it already recorded. It is never the source of truth (the status items and
 * their conditional writes are): an entry is trusted only while it says what the status item holds, which every
 * writer of a changed status keeps so (docs/architecture.md, "The poll summary"). Losing it costs reads, never a
 * wrong decision.
 */
export interface PolledStatus {
  /** The store's fingerprint of the status (`statusFingerprint`). */
  fingerprint: string;
  /** ISO 8601: the status item's `observedAt` when the entry was written. */
  observedAt: string;
}

export interface PollSummary {
  /** Opaque: the version read, which `putPollSummary` writes only over. */
  version: string;
  /**
   * Nothing was ever written to the summary or forgotten from it: no poll has recorded the pair, and no other writer
   * has recorded a status of its apps since it came into use (each moves the version on). Its first poll.
   */
  pristine: boolean;
  /** By `{namespace}/{name}` of the app. */
  entries: ReadonlyMap<string, PolledStatus>;
}

/** What a `poll` message reads first: the pair's usage and its summary, in one request. */
export interface ClusterKindPoll {
  usage: ClusterKindUsage;
  summary: PollSummary;
}

/** `RecordedStatus`, with where the item stands after it: what a poll may put in its summary. */
export interface PolledRecord extends RecordedStatus {
  outcome: PolledRecordOutcome;
  /** What the item holds now, for an `outcome` of `written` or `unchanged`. */
  polled?: PolledStatus;
}

/** An app whose status a pristine pair's first poll wrote in a batch, and what its item holds now. */
export interface CreatedPolledStatus {
  app: AppKey;
  polled: PolledStatus;
}

/** Where a status item stands after a poll recorded an observation in it. */
export type PolledRecordOutcome =
  /** The item now holds this status, written (new or changed) by this call. */
  | 'written'
  /** The item held this status already (its observation time refreshed if `refreshAfterMs` said so). */
  | 'unchanged'
  /** The item holds a newer observation: this one was dropped and says nothing about what is stored. */
  | 'older';

export interface PollSummaries {
  /** One (cluster, kind) pair's usage and poll summary (one request); undefined when no pipeline uses it. */
  getClusterKindPoll(cluster: ObjectKey, kind: WatchedKind): Promise<ClusterKindPoll | undefined>;
  /** The fingerprint a summary entry holds for `status` (no request). */
  statusFingerprint(status: TargetStatus): string;
  /**
   * `recordTargetStatus`, telling also where the item stands after it: what the poll may put in its summary (an
   * entry only for `written` and `unchanged`).
   */
  recordPolledStatus(
    app: AppKey,
    status: TargetStatus,
    now: Date,
    options?: {
      refreshAfterMs?: number;
      /**
       * The app was most likely never recorded (its pair's summary is empty: the first poll after an apply): the
       * write is tried before any read, on the condition that there is no item. When there is one after all, that
       * costs a refused write, then the call goes on as without it.
       */
      likelyNew?: boolean;
    },
  ): Promise<PolledRecord>;
  /**
   * A pristine pair's first poll: the statuses of the apps that have no status item are written in batches, and the
   * others left to `recordPolledStatus` (those not in the answer). Each app once. The batch writes have no condition (DynamoDB's batch writes cannot have one),
   * so a status another writer created after the read that found none is written over: the poll notices through
   * its summary's version, which that writer moves on, or the writer does, reading its item again after moving it
   * (docs/architecture.md, "The poll summary").
   */
  createPolledStatuses(
    observations: readonly { app: AppKey; status: TargetStatus }[],
    now: Date,
  ): Promise<CreatedPolledStatus[]>;
  /**
   * Sets (`PolledStatus`) or removes (`undefined`) the entries of `changes` (by `{namespace}/{name}`) in the pair's
   * summary, only if its version is still `version`. False when another writer got there first (nothing written) or
   * the pair is no longer in use.
   */
  putPollSummary(
    cluster: ObjectKey,
    kind: WatchedKind,
    version: string,
    changes: ReadonlyMap<string, PolledStatus | undefined>,
  ): Promise<boolean>;
  /**
   * Drops the app's entry from its pair's summary and moves the version on, so no poll that read the summary before
   * can write it back. Every writer that changed a status outside a poll's summary write calls it after the write.
   */
  forgetPolledStatus(app: AppKey): Promise<void>;
}

// ---------------------------------------------------------------- poll digests

/**
 * What the last full poll of one (cluster, kind) listed, and a digest of everything the LIST held
 * (lib/verifier/list-digest.ts): a later poll whose LIST gives the same digest, under the same configuration
 * generation and while the digest is fresh, has nothing to record and reads nothing more (docs/architecture.md, "The
 * poll digest"). A cache, like the summary: losing one costs a full poll of the pair, never a wrong decision.
 */
export interface PairDigest {
  /** The configuration generation (`getConfigurationGeneration`) read before the poll that wrote it. */
  generation: number;
  /** The namespaces that poll listed, in its order. */
  namespaces: string[];
  digest: string;
  /** ISO 8601: when it was written. */
  writtenAt: string;
}

/** A pair's digest as stored: the digest, when there is one, and how many times one was invalidated. */
export interface StoredPairDigest {
  digest?: PairDigest;
  invalidations: number;
}

/** What the poller last listed of the (cluster, kind) pairs in use, under a configuration generation. */
export interface PollPlan {
  generation: number;
  /** ISO 8601: when the poller listed it. */
  listedAt: string;
  pairs: { cluster: ObjectKey; kind: WatchedKind }[];
  /** Every pipeline with a target on one of the pairs. */
  pipelines: ObjectKey[];
}

export interface PollDigests {
  /**
   * A number that every stored change of a pipeline, a cluster registration or a PipelineSet moves on after its
   * write (read consistently; 0 before the first): what a digest or a plan computed from the configuration holds for.
   */
  getConfigurationGeneration(): Promise<number>;
  /**
   * The digests of these clusters' pairs, by `objectKeyString(cluster)` then kind: a read per poll group of theirs
   * (pollGroupOf), so clusters of few groups are cheap to read together. A pair is here when it has a digest or has
   * had one invalidated.
   */
  getPollDigests(clusters: readonly ObjectKey[]): Promise<Map<string, ReadonlyMap<WatchedKind, StoredPairDigest>>>;
  /**
   * Sets a pair's digest, unless it was invalidated since `seen` (the pair's `invalidations` as read before its LIST):
   * false then, and nothing is written, so that a poll does not vouch for a LIST made before a failed read recorded
   * outside it.
   */
  putPollDigest(cluster: ObjectKey, kind: WatchedKind, digest: PairDigest, seen: number): Promise<boolean>;
  /** Removes a pair's digest and counts an invalidation (see `putPollDigest`). */
  invalidatePollDigest(cluster: ObjectKey, kind: WatchedKind): Promise<void>;
  getPollPlan(): Promise<PollPlan | undefined>;
  /** Stores the plan; false when it is too large to keep (the poller lists the pairs on every poll then). */
  putPollPlan(plan: PollPlan): Promise<boolean>;
}

// ---------------------------------------------------------------- approvals and promotions

export type ApprovalRequestOutcome =
  /** The marker now waits for this revision (new, or replacing an older request). */
  | 'requested'
  /** The marker already waited for this revision. */
  | 'unchanged'
  /** The marker waits for a newer revision, which is never replaced by an older one. */
  | 'superseded';

export type ApproveOutcome =
  /** This approval was the last one the policy required: the marker is approved now. */
  | 'approved'
  /** This approval was recorded; the policy requires more distinct approvers. */
  | 'counted'
  /** The marker was approved already (by enough others, or by this one). */
  | 'already-approved'
  /** This identity approved the revision before, and more approvers are still needed: it counts once. */
  | 'already-counted'
  /** Someone rejected the revision: no approval counts any more. */
  | 'rejected'
  /** The marker waits for another revision, or there is none. */
  | 'not-waiting';

export type RejectOutcome =
  | 'rejected'
  | 'already-rejected'
  /** The marker was approved already: the promotion is under way and is not stopped by a rejection. */
  | 'already-approved'
  | 'not-waiting';

export interface Approvals {
  getApproval(pipeline: ObjectKey, env: string): Promise<ApprovalMarker | undefined>;
  /** Every marker of a pipeline (at most one per environment). */
  listApprovals(pipeline: ObjectKey): Promise<ApprovalMarker[]>;
  /** Sets the marker to wait for `revision`, replacing a request for another revision unless that one is newer. */
  requestApproval(pipeline: ObjectKey, env: string, revision: string, now: Date): Promise<ApprovalRequestOutcome>;
  /**
   * Records `by`'s approval of exactly `revision` (once per identity) and approves the marker once `required`
   * distinct identities approved it (default 1); `not-waiting` when the marker waits for another revision or there
   * is none, `rejected` when the revision was rejected. A policy of one writes `approvedAt`/`approvedBy` only. An
   * identity counted before approves when the approvals counted already reach `required` (a policy lowered since).
   * Distinct means distinct `countedAs`: the identity `by` is (default `approverIdentity(by)`, lib/approval), so two
   * sessions of one role count once; `by` is what is recorded and shown.
   */
  approve(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    by: string,
    now: Date,
    required?: number,
    countedAs?: string,
  ): Promise<ApproveOutcome>;
  /** Rejects exactly `revision` while it waits for approval: it is not promoted into `env` (docs/approval-policies.md). */
  reject(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    by: string,
    reason: string,
    now: Date,
  ): Promise<RejectOutcome>;
  /** Removes the marker if it is for `revision`; false when it was not. */
  clearApproval(pipeline: ObjectKey, env: string, revision: string): Promise<boolean>;
}

/** A promotion record with the version its optimistic updates are conditional on. */
export interface VersionedPromotionRecord extends PromotionRecord {
  pipeline: ObjectKey;
  version: number;
  /** ISO 8601. */
  createdAt: string;
  /** Who holds the lease while `pending`/`in-progress`. */
  owner?: string;
  /** Why the last attempt failed, with `error`; absent on records written before kinds were kept. */
  failureKind?: PromotionFailureKind;
}

/** Who takes a new promotion record's first attempt as it is created, and for how long (`createPromotion`). */
export interface PromotionClaim {
  owner: string;
  leaseMs: number;
}

export interface Promotions {
  getPromotion(pipeline: ObjectKey, env: string, revision: string): Promise<VersionedPromotionRecord | undefined>;
  /** Every record of a pipeline (newest revision order is not implied). */
  listPromotions(pipeline: ObjectKey): Promise<VersionedPromotionRecord[]>;
  /**
   * Creates the record for (pipeline, env, revision) unless one exists; exactly one caller creates it. Without
   * `claim` it is created `pending`, with `record` as created. With `claim` it is created already claimed, in the one
   * conditional write: `record` is then exactly what `claimPromotion(…, claim.owner, claim.leaseMs, now)` would
   * return after a `pending` create (`in-progress`, attempts 1, leased to `owner` until now + leaseMs, version 2),
   * one write instead of a write, a read and a write. When a record exists, nothing is written (the conditional
   * write is refused), `created` is false and `record` is the stored one, as it is, claim or not: the caller claims
   * it with `claimPromotion` as it would without `claim` (a retry, a resumed attempt, a second worker racing).
   */
  createPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    now: Date,
    claim?: PromotionClaim,
  ): Promise<{ created: boolean; record: VersionedPromotionRecord }>;
  /**
   * Takes the record for an attempt: from `pending`, from `in-progress` whose lease expired, or from `failed` whose
   * `retryAt` has come. It becomes `in-progress`, leased to `owner` until now + leaseMs, attempts + 1. Undefined
   * when someone else holds it, it succeeded, or it is not due.
   */
  claimPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    owner: string,
    leaseMs: number,
    now: Date,
  ): Promise<VersionedPromotionRecord | undefined>;
  /**
   * Ends the attempt `record` (as claimed) with success and its result, forgetting what a host said of an earlier
   * result's pull request (`pullRequest`); false when the record moved on meanwhile.
   */
  completePromotion(record: VersionedPromotionRecord, result: string | undefined, now: Date): Promise<boolean>;
  /**
   * Records what the Git host says of the pull request of `record` (a succeeded pull-request promotion), seen at
   * `now` (`pullRequest`), conditional on the record's version as read, so that of two workers reading the host at
   * once the one that read an older record cannot put back a state the other moved on from. It leaves `updatedAt`
   * as it is: the promotion itself did not change. False when the record moved on meanwhile.
   */
  recordPullRequestState(record: VersionedPromotionRecord, state: PullRequestState, now: Date): Promise<boolean>;
  /**
   * Records what was last recorded on the Git host of the rollout of `record`'s merged pull request
   * (`hostDeployment`), conditional on the record's version as read, as recordPullRequestState; `updatedAt` stays.
   * False when the record moved on meanwhile.
   */
  recordHostDeployment(record: VersionedPromotionRecord, deployment: HostDeploymentRecord): Promise<boolean>;
  /**
   * Claims the recording of `record`'s rollout on the Git host until `until` (`hostDeploymentClaimedUntil`),
   * conditional on the record's version as read; recordHostDeployment on the claimed record removes the claim. The
   * claimed record, or undefined when the record moved on meanwhile.
   */
  claimHostDeployment(record: VersionedPromotionRecord, until: Date): Promise<VersionedPromotionRecord | undefined>;
  /**
   * Ends the attempt with a failure, and why (`failureKind`, kept beside `error`); `retryAt` absent means failed for
   * good. False when the record moved on.
   */
  failPromotion(
    record: VersionedPromotionRecord,
    error: string,
    retryAt: Date | undefined,
    now: Date,
    failureKind?: PromotionFailureKind,
  ): Promise<boolean>;
}

// ---------------------------------------------------------------- verification records

/** A verification record with the version its conditional writes are on. */
export interface VersionedVerificationRecord extends VerificationRecord {
  pipeline: ObjectKey;
  version: number;
}

/**
 * What an environment's verification checks found (docs/verification.md): one record per (pipeline, environment),
 * the revision last verified there; a newer revision's first evaluation replaces it.
 */
export interface Verifications {
  /** The pipeline's records, one per environment that was verified, in no particular order. */
  listVerifications(pipeline: ObjectKey): Promise<VersionedVerificationRecord[]>;
  /**
   * Stores `record` for its environment if what is stored there is still at `expectedVersion` (0: nothing is), as
   * version `expectedVersion + 1`. False when another evaluation wrote first: the caller reads and folds again.
   */
  putVerification(pipeline: ObjectKey, record: VerificationRecord, expectedVersion: number): Promise<boolean>;
}

// ---------------------------------------------------------------- evidence of a release train's members

/**
 * The evidence a member of a release train (docs/release-trains.md) was promoted on, kept per (pipeline,
 * environment, revision) in the pipeline's partition, so that the group's pull request shows every member's and not
 * only that of the member whose promotion wrote it last.
 */
export interface PromotionEvidenceRecords {
  recordPromotionEvidence(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    evidence: PromotionEvidence,
  ): Promise<void>;
  getPromotionEvidence(pipeline: ObjectKey, env: string, revision: string): Promise<PromotionEvidence | undefined>;
}

// ---------------------------------------------------------------- served inputs

/**
 * What the receiver serves Flux Operator for each `external-service` environment (docs/external-service.md): one
 * record per (pipeline, environment), in the pipeline's partition, so a deleted pipeline takes them along.
 */
export interface ServedInputs {
  /** The environment's record: one read, all the inputs route makes. */
  getServedInput(pipeline: ObjectKey, env: string): Promise<ServedInput | undefined>;
  /** The pipeline's records, one per environment that serves something, in no particular order. */
  listServedInputs(pipeline: ObjectKey): Promise<ServedInput[]>;
  /** Serves `input` for its environment from now on, replacing what was served (a promotion). */
  putServedInput(pipeline: ObjectKey, input: ServedInput): Promise<void>;
  /**
   * Serves `input` only if nothing is served for its environment yet (the revision it runs, before its first
   * promotion); false when something is, which then stays.
   */
  seedServedInput(pipeline: ObjectKey, input: ServedInput): Promise<boolean>;
}

// ---------------------------------------------------------------- audit trail

/** What an audit entry records: always an effect, never a decision that changed nothing. */
export const AUDIT_ENTRY_TYPES = [
  /** The verifier set an environment's marker to wait for a revision. */
  'approval-requested',
  /** The verifier removed a marker whose revision waits for nothing any more. */
  'approval-cleared',
  /** Someone approved the waiting revision (pipelinectl or the approval webhook). */
  'approved',
  'promotion-started',
  'promotion-succeeded',
  'promotion-failed',
  /** The local mode found an attempt cut off by a stop and made it due again. */
  'promotion-interrupted',
  /** `pipelinectl retry` made a failed promotion due now. */
  'promotion-retry-requested',
  /** Someone rejected the waiting revision (`pipelinectl reject`, the dashboard). */
  'rejected',
  /** `pipelinectl freeze` set a stop switch that covers the pipeline (`env` absent: every environment). */
  'freeze-set',
  /** `pipelinectl unfreeze` removed a stop switch that covered the pipeline. */
  'freeze-cleared',
  /** A rollback pull request for the failed `revision` is being opened (docs/rollback.md). */
  'rollback-started',
  'rollback-succeeded',
  'rollback-failed',
  /**
   * Every target of the environment was seen Ready on `revision`; `at` is when the last of them became so. Once per
   * healthy spell (lib/verifier/environment-facts.ts): what lead time, deployments and restores are measured from.
   */
  'environment-passed',
  /**
   * A target of the environment was seen Failed; `at` is when the first of them became so, `revision` the one they
   * run when they agree. Once per unhealthy spell: what change failures and time to restore are measured from.
   */
  'environment-regressed',
  /**
   * The environment's verification checks held for the whole `for` on `revision` (docs/verification.md): once per
   * (environment, revision), by the verifier that decided it.
   */
  'verification-passed',
  /** A verification check failed on `revision` (or could not be evaluated, under `onInconclusive: fail`). */
  'verification-failed',
] as const;
export type AuditEntryType = (typeof AUDIT_ENTRY_TYPES)[number];

export interface AuditEntry {
  /** ISO 8601. */
  at: string;
  pipeline: ObjectKey;
  type: AuditEntryType;
  env?: string;
  revision?: string;
  /** One line for a person. */
  message: string;
  /** Who or what did it: `pipeline-controller` (the verifier), an HMAC key name, a CLI user. */
  actor?: string;
  /** `promotion-failed`, `rollback-failed`: why, as a name a machine can count (absent in older entries). */
  failureKind?: PromotionFailureKind;
}

export interface AuditLog {
  /** Appends an entry; entries expire after the store's retention. */
  appendAudit(entry: AuditEntry): Promise<void>;
  /** The newest entries of a pipeline first. */
  listAudit(pipeline: ObjectKey, page?: PageRequest): Promise<Page<AuditEntry>>;
}

// ---------------------------------------------------------------- notifications to people

export interface Notifications {
  /**
   * Claims the one message about (pipeline, env, revision, kind): true for the first caller only, however many
   * verifiers ask, so a person is told at most once. The claim expires with the audit retention. The verifier claims
   * each environment fact it records the same way, in kinds of its own (lib/verifier/environment-facts.ts).
   */
  claimNotification(pipeline: ObjectKey, env: string, revision: string, kind: string, now: Date): Promise<boolean>;
}

// ---------------------------------------------------------------- ConfigSources

/** Why a ConfigSource's last sync ended as it did: Flux's `Ready` condition reasons (docs/config-sources.md). */
export const CONFIG_SYNC_REASONS = [
  'Succeeded',
  'ValidationFailed',
  'GitUnavailable',
  'Unauthorized',
  'Conflict',
  'NotFound',
  /** Applied, not synced yet. */
  'Pending',
] as const;
export type ConfigSyncReason = (typeof CONFIG_SYNC_REASONS)[number];

/** A condition as Flux writes one (metav1.Condition without observedGeneration). */
export interface ReadyCondition {
  type: 'Ready';
  status: 'True' | 'False' | 'Unknown';
  reason: ConfigSyncReason;
  message: string;
  /** ISO 8601: when `status` last changed. */
  lastTransitionTime: string;
}

export interface ConfigSourceStatus {
  /** The last commit a sync was made for, `<branch>@sha1:<hex>`, whatever its outcome. */
  lastAttemptedRevision?: string;
  /** The last commit whose configuration is in force. */
  lastAppliedRevision?: string;
  /** The source's generation the last attempt was made for: a changed spec syncs its commit again. */
  attemptedGeneration?: number;
  /** Objects applied (Pipelines and GitopsClusters) and documents skipped (other kinds) at the last applied commit. */
  applied?: number;
  skipped?: number;
  conditions: ReadyCondition[];
}

export interface StoredConfigSource {
  document: ConfigSourceDocument;
  generation: number;
  appliedAt: string;
  status: ConfigSourceStatus;
}

/** A sync of one commit under way: what `finishConfigSync` is conditional on. */
export interface ConfigSyncClaim {
  source: ObjectKey;
  revision: string;
  generation: number;
  token: string;
}

/** What a sync ended with; `attempted: false` (Git could not be read) leaves the commit to be tried again. */
export interface ConfigSyncResult {
  attempted: boolean;
  appliedRevision?: string;
  applied?: number;
  skipped?: number;
  ready: Omit<ReadyCondition, 'type' | 'lastTransitionTime'>;
}

/** An applied commit of a ConfigSource, in its own trail (`history --type config-applied`). */
export interface ConfigAuditEntry {
  /** ISO 8601. */
  at: string;
  configSource: ObjectKey;
  type: 'config-applied';
  revision: string;
  /** The commit's author as the Git host reports it, when it does. */
  author?: string;
  message: string;
  created: string[];
  configured: string[];
  pruned: string[];
  actor?: string;
}

export interface ConfigSources {
  /** Stores a ConfigSource, keeping its status; a changed spec raises its generation (so its commit syncs again). */
  applyConfigSource(document: ConfigSourceDocument, now: Date): Promise<{ changed: boolean }>;
  getConfigSource(key: ObjectKey): Promise<StoredConfigSource | undefined>;
  listConfigSources(page?: PageRequest): Promise<Page<StoredConfigSource>>;
  /** Removes a ConfigSource (the objects it applied stay, owned by nothing). False when there was none. */
  deleteConfigSource(key: ObjectKey): Promise<boolean>;
  /**
   * Takes the sync of `revision` for the source's current generation: undefined when it was attempted already, or
   * another sync of it holds the lease (until `leaseMs` after it took it), or the source is gone or changed. Exactly
   * one of many concurrent callers for one commit gets it.
   */
  claimConfigSync(
    source: ObjectKey,
    revision: string,
    generation: number,
    now: Date,
    leaseMs: number,
  ): Promise<ConfigSyncClaim | undefined>;
  /** Records how the claimed sync ended and lets go of the lease; false when the claim was lost meanwhile. */
  finishConfigSync(claim: ConfigSyncClaim, result: ConfigSyncResult, now: Date): Promise<boolean>;
  appendConfigAudit(entry: ConfigAuditEntry): Promise<void>;
  /** The newest entries of a source first. */
  listConfigAudit(source: ObjectKey, page?: PageRequest): Promise<Page<ConfigAuditEntry>>;
}

// ---------------------------------------------------------------- PipelineSets

/** A PipelineSet as applied: the Pipelines it generates are stored as pipelines, marked with its label. */
export interface StoredPipelineSet {
  document: PipelineSetDocument;
  generation: number;
  /** ISO 8601. */
  appliedAt: string;
  /** Absent when applied with the CLI. */
  owner?: ObjectOwner;
  /** What its `apps` generators found at the last poll, by `appsPlaceKey` (lib/pipeline/pipeline-set.ts). */
  appsFound?: Record<string, FoundApp[]>;
}

export interface PipelineSets {
  /** Stores a PipelineSet; applying an unchanged document (and owner) writes nothing. */
  applyPipelineSet(document: PipelineSetDocument, now: Date, owner?: ObjectOwner): Promise<{ changed: boolean }>;
  getPipelineSet(key: ObjectKey): Promise<StoredPipelineSet | undefined>;
  listPipelineSets(page?: PageRequest): Promise<Page<StoredPipelineSet>>;
  /** Removes the set alone (its pipelines are the caller's to delete first). False when there was none. */
  deletePipelineSet(key: ObjectKey): Promise<boolean>;
  /**
   * Records what the set's `apps` generators found, conditional on the generation read: false when the set was
   * applied again or deleted meanwhile (the next poll finds them again). An apply of the set keeps what is recorded.
   */
  recordPipelineSetApps(key: ObjectKey, generation: number, appsFound: Record<string, FoundApp[]>): Promise<boolean>;
}

// ---------------------------------------------------------------- stop switches

export interface Freezes {
  /** Sets the switch for its scope and environment, replacing one set there before. */
  setFreeze(freeze: FreezeSwitch): Promise<void>;
  /** Removes the switches of `scope` for `env` (absent: for every environment); returns what was removed. */
  clearFreezes(scope: FreezeScope, env?: string): Promise<FreezeSwitch[]>;
  /** Every switch of the installation, installation-wide and per pipeline (one request; a handful of items). */
  listFreezes(): Promise<FreezeSwitch[]>;
}

export type Store = ConfigurationStore &
  AppsIndex &
  TargetStatuses &
  Approvals &
  Promotions &
  Verifications &
  PromotionEvidenceRecords &
  ServedInputs &
  AuditLog &
  Notifications &
  Freezes &
  PollSummaries &
  PollDigests &
  ConfigSources &
  PipelineSets;

/**
 * What the receiver reads and writes (lib/http): the lookups of its routes and the writes of an approval. The receiver
 * Lambda's store is built by `createReceiverStore`, which holds only these.
 */
export type ReceiverStore = Pick<
  Store,
  | 'getCluster'
  | 'findTargets'
  | 'getPipeline'
  | 'getApproval'
  | 'approve'
  | 'appendAudit'
  | 'getConfigSource'
  | 'getServedInput'
>;
