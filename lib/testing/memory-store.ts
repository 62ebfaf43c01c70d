// The whole Store port in memory, for tests that check a rule in milliseconds. It keeps the DynamoDB adapter's
// semantics where callers can see them (test/store/store-contract.ts runs against both): versions and conditions on
// approvals and promotion records, opaque page cursors, the audit trail newest first, undefined fields dropped on
// write. Each call is atomic (nothing interleaves inside it), which is what the adapter's conditional writes
// guarantee for one item. Values are copied in and out, so a caller can never change what is stored.
/* eslint-disable @typescript-eslint/require-await -- the port is asynchronous; memory has nothing to wait for */
import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import type {
  ConfigSourceDocument,
  WatchedKind,
  GitopsClusterDocument,
  PipelineDocument,
  PipelineSetDocument,
} from '../config/schema.js';
import { attemptKey, pendingStatus, syncedStatus } from '../store/config-sync-step.js';
import {
  isClaimable,
  promotionStage,
  type ApprovalMarker,
  type HostDeploymentRecord,
  type PullRequestState,
  type PromotionEvidence,
  type ServedInput,
  type VerificationRecord,
} from '../decision/index.js';
import type { TargetStatus } from '../flux/target-status.js';
import type { FreezeScope, FreezeSwitch } from '../pipeline/freeze.js';
import type { FoundApp } from '../pipeline/pipeline-set.js';
import type { PromotionFailureKind } from '../promotion/failure-kind.js';
import { canonicalJson } from '../store/index.js';
import {
  approvalBy,
  approvalEntry,
  approvalStep,
  isApprovalWrite,
  rejectStep,
  requestStep,
} from '../store/approval-step.js';
import { newPromotionRecord } from '../store/new-promotion-record.js';
import { sameOwningSource } from '../store/object-owner.js';
import {
  appKeyOf,
  appKeyString,
  keyOfMetadata,
  objectKeyString,
  pollGroupOf,
  type AppKey,
  type ObjectKey,
  type Pipeline,
  watchedObjectsOf,
  pipelineKeyOf,
} from '../pipeline/model.js';
import type {
  ApprovalRequestOutcome,
  ApproveOutcome,
  AuditEntry,
  ClusterKindPoll,
  ClusterKindUsage,
  ConfigAuditEntry,
  ConfigSyncClaim,
  ConfigSyncResult,
  ObjectOwner,
  StoredConfigSource,
  StoredPipelineSet,
  IndexedTarget,
  ObservedTargetStatus,
  Page,
  PageRequest,
  CreatedPolledStatus,
  PolledRecord,
  RecordedStatus,
  PairDigest,
  StoredPairDigest,
  PolledStatus,
  PollPlan,
  PromotionClaim,
  RejectOutcome,
  Store,
  StoredCluster,
  StoredPipeline,
  VersionedPromotionRecord,
  VersionedVerificationRecord,
} from '../store/port.js';

interface StoredStatus extends ObservedTargetStatus {
  app: AppKey;
}

interface StoredAuditEntry {
  entry: AuditEntry;
  /** Orders entries of the same millisecond: later appends are newer. */
  sequence: number;
}

/** Read and write requests, counted one per item the way the contract suite counts an adapter's requests. */
export interface MemoryStoreCounts {
  reads: number;
  writes: number;
}

export class MemoryStore implements Store {
  readonly counts: MemoryStoreCounts = { reads: 0, writes: 0 };
  readonly #pipelines = new Map<string, StoredPipeline>();
  readonly #clusters = new Map<string, StoredCluster>();
  readonly #statuses = new Map<string, StoredStatus>();
  /** By pipeline, then environment. */
  readonly #approvals = new Map<string, Map<string, ApprovalMarker>>();
  /** By `promotionId`. */
  readonly #promotions = new Map<string, VersionedPromotionRecord>();
  /** By pipeline, then environment. */
  readonly #verifications = new Map<string, Map<string, VersionedVerificationRecord>>();
  readonly #servedInputs = new Map<string, Map<string, ServedInput>>();
  /** By `{pipeline} {env} {revision}`. */
  readonly #evidence = new Map<string, PromotionEvidence>();
  /** By pipeline. */
  readonly #audit = new Map<string, StoredAuditEntry[]>();
  /** By source: what the table's item holds, the last attempt and the lease of a sync under way beside the source. */
  readonly #configSources = new Map<
    string,
    { source: StoredConfigSource; attempted?: string; lease?: { token: string; until: number } }
  >();
  readonly #pipelineSets = new Map<string, StoredPipelineSet>();
  readonly #configAudit = new Map<string, { entry: ConfigAuditEntry; sequence: number }[]>();
  #auditSequence = 0;
  /** Claimed notifications, by (pipeline, env, revision, kind). */
  readonly #notifications = new Set<string>();
  /** Stop switches, by the table's sort key for (scope, env), so they list in the table's order. */
  readonly #freezes = new Map<string, FreezeSwitch>();
  /** Poll summaries by (cluster, kind): one version for the pair (the table keeps one per namespace). */
  readonly #pollSummaries = new Map<string, { version: number; entries: Map<string, PolledStatus> }>();
  /** Moved on by every change of a pipeline, a cluster registration or a PipelineSet. */
  #configurationGeneration = 0;
  /** Poll digests by cluster, then kind. */
  readonly #pollDigests = new Map<string, Map<WatchedKind, StoredPairDigest>>();
  #pollPlan: PollPlan | undefined;

  resetCounts(): void {
    this.counts.reads = 0;
    this.counts.writes = 0;
  }

  /**
   * Overwrites fields of a promotion record as stored, past every rule of the port: what only an older version or a
   * hand edit can leave behind (an unreadable lease, say), for a test of how the rules read it.
   */
  patchPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    fields: Partial<Omit<VersionedPromotionRecord, 'pipeline' | 'env' | 'revision'>>,
  ): void {
    const id = promotionId(pipeline, env, revision);
    const current = this.#promotions.get(id);
    if (!current) throw new Error(`no promotion record ${id} to patch`);
    this.#promotions.set(id, copy({ ...current, ...fields }));
  }

  // ---------------------------------------------------------------- configuration and the apps index

  async applyPipeline(
    document: PipelineDocument,
    pipeline: Pipeline,
    now: Date,
    owner?: ObjectOwner,
  ): Promise<{ changed: boolean }> {
    const id = objectKeyString(pipeline);
    const existing = this.#read(this.#pipelines.get(id));
    const applied = copy({ document, pipeline });
    if (
      existing &&
      isDeepStrictEqual({ document: existing.document, pipeline: existing.pipeline }, applied) &&
      sameOwningSource(existing.owner, owner)
    ) {
      return { changed: false };
    }
    this.#write(id, this.#pipelines, {
      ...applied,
      generation: (existing?.generation ?? 0) + 1,
      appliedAt: now.toISOString(),
      ...(owner ? { owner } : {}),
    });
    this.#configurationGeneration += 1;
    return { changed: true };
  }

  async deletePipeline(key: ObjectKey): Promise<boolean> {
    const id = objectKeyString(key);
    if (!this.#read(this.#pipelines.get(id))) return false;
    this.#delete(id, this.#pipelines);
    this.#configurationGeneration += 1;
    // The definition, approval markers and promotion records share the pipeline's partition in the table.
    this.#approvals.delete(id);
    this.#verifications.delete(id);
    this.#servedInputs.delete(id);
    for (const evidenceId of this.#evidence.keys()) {
      if (evidenceId.startsWith(`${id} `)) this.#evidence.delete(evidenceId);
    }
    for (const [recordId, record] of this.#promotions) {
      if (objectKeyString(record.pipeline) === id) this.#delete(recordId, this.#promotions);
    }
    return true;
  }

  async getPipeline(key: ObjectKey): Promise<StoredPipeline | undefined> {
    return this.#read(this.#pipelines.get(objectKeyString(key)));
  }

  async listPipelines(page: PageRequest = {}): Promise<Page<StoredPipeline>> {
    const sorted = sortedBy([...this.#pipelines.values()], (stored) => objectSortKey(stored.pipeline));
    return this.#page(sorted, (stored) => objectSortKey(stored.pipeline), page);
  }

  async applyCluster(document: GitopsClusterDocument, now: Date, owner?: ObjectOwner): Promise<{ changed: boolean }> {
    const id = objectKeyString(clusterKeyOf(document));
    const existing = this.#read(this.#clusters.get(id));
    const applied = copy(document);
    if (existing && isDeepStrictEqual(existing.document, applied) && sameOwningSource(existing.owner, owner)) {
      return { changed: false };
    }
    this.#write(id, this.#clusters, {
      document: applied,
      generation: (existing?.generation ?? 0) + 1,
      appliedAt: now.toISOString(),
      ...(owner ? { owner } : {}),
    });
    this.#configurationGeneration += 1;
    return { changed: true };
  }

  async getCluster(key: ObjectKey): Promise<StoredCluster | undefined> {
    return this.#read(this.#clusters.get(objectKeyString(key)));
  }

  async deleteCluster(key: ObjectKey): Promise<boolean> {
    const id = objectKeyString(key);
    if (!this.#read(this.#clusters.get(id))) return false;
    this.#delete(id, this.#clusters);
    this.#configurationGeneration += 1;
    return true;
  }

  async listClusters(page: PageRequest = {}): Promise<Page<StoredCluster>> {
    const sortKey = (stored: StoredCluster) => objectSortKey(clusterKeyOf(stored.document));
    return this.#page(sortedBy([...this.#clusters.values()], sortKey), sortKey, page);
  }

  async findTargets(app: AppKey): Promise<IndexedTarget[]> {
    this.counts.reads += 1;
    const wanted = appKeyString(app);
    const found: { sortKey: string; target: IndexedTarget }[] = [];
    for (const { pipeline } of this.#pipelines.values()) {
      const key = pipelineKeyOf(pipeline);
      for (const env of pipeline.environments) {
        env.targets.forEach((target, targetIndex) => {
          if (appKeyString(appKeyOf(pipeline, target)) !== wanted) return;
          const sortKey = `${objectSortKey(key)}#${part(env.name)}#${targetIndex}`;
          found.push({ sortKey, target: { pipeline: key, env: env.name, targetIndex } });
        });
      }
      const [first] = pipeline.environments;
      if (pipeline.source && first && appKeyString(pipeline.source) === wanted) {
        const sortKey = `${objectSortKey(key)}#${part(first.name)}#source`;
        found.push({ sortKey, target: { pipeline: key, env: first.name, targetIndex: 0, source: true } });
      }
    }
    return sortedBy(found, (entry) => entry.sortKey).map((entry) => entry.target);
  }

  async listClusterKinds(): Promise<ClusterKindUsage[]> {
    this.counts.reads += 1;
    return this.#usage();
  }

  async getClusterKind(cluster: ObjectKey, kind: WatchedKind): Promise<ClusterKindUsage | undefined> {
    this.counts.reads += 1;
    const id = objectKeyString(cluster);
    return this.#usage().find((usage) => objectKeyString(usage.cluster) === id && usage.kind === kind);
  }

  /** The (cluster, kind) pairs in use, as the apply order leaves the table's usage items once it is done. */
  #usage(): ClusterKindUsage[] {
    const items = new Map<string, { app: AppKey; pipelines: Set<string> }>();
    for (const { pipeline } of this.#pipelines.values()) {
      for (const app of watchedObjectsOf(pipeline)) {
        const sortKey = `${objectSortKey(app.cluster)}/${part(app.kind)}/${part(app.namespace)}`;
        const item = items.get(sortKey) ?? { app, pipelines: new Set<string>() };
        item.pipelines.add(objectKeyString(pipeline));
        items.set(sortKey, item);
      }
    }
    const usage = new Map<string, ClusterKindUsage>();
    for (const sortKey of [...items.keys()].sort()) {
      const { app, pipelines } = items.get(sortKey) as { app: AppKey; pipelines: Set<string> };
      const id = `${objectKeyString(app.cluster)}/${app.kind}`;
      const entry = usage.get(id) ?? { cluster: { ...app.cluster }, kind: app.kind, namespaces: [], pipelines: [] };
      entry.namespaces.push(app.namespace);
      for (const name of [...pipelines].sort()) {
        if (entry.pipelines.some((known) => objectKeyString(known) === name)) continue;
        const [namespace = '', ...rest] = name.split('/');
        entry.pipelines.push({ namespace, name: rest.join('/') });
      }
      usage.set(id, entry);
    }
    return [...usage.values()];
  }

  // ---------------------------------------------------------------- observed target status

  async getTargetStatus(app: AppKey): Promise<ObservedTargetStatus | undefined> {
    const stored = this.#read(this.#statuses.get(appKeyString(app)));
    return stored && observed(stored);
  }

  async getTargetStatuses(apps: readonly AppKey[]): Promise<Map<string, ObservedTargetStatus>> {
    const found = new Map<string, ObservedTargetStatus>();
    for (const id of new Set(apps.map(appKeyString))) {
      const stored = this.#read(this.#statuses.get(id));
      if (stored) found.set(id, observed(stored));
    }
    return found;
  }

  async recordTargetStatus(
    app: AppKey,
    status: TargetStatus,
    now: Date,
    options: { refreshAfterMs?: number } = {},
  ): Promise<RecordedStatus> {
    const { changed, written, created } = await this.recordPolledStatus(app, status, now, options);
    return { changed, written, created };
  }

  // ---------------------------------------------------------------- the poll summary

  async getClusterKindPoll(cluster: ObjectKey, kind: WatchedKind): Promise<ClusterKindPoll | undefined> {
    const usage = await this.getClusterKind(cluster, kind);
    const id = pollSummaryId(cluster, kind);
    if (!usage) {
      // The table's summary lives on the usage items, and goes with them.
      this.#pollSummaries.delete(id);
      return undefined;
    }
    const summary = this.#summaryOf(id);
    return {
      usage,
      summary: {
        version: String(summary.version),
        pristine: summary.version === 0,
        entries: structuredClone(summary.entries),
      },
    };
  }

  statusFingerprint(status: TargetStatus): string {
    return fingerprint(status);
  }

  async recordPolledStatus(
    app: AppKey,
    status: TargetStatus,
    now: Date,
    options: { refreshAfterMs?: number; likelyNew?: boolean } = {},
  ): Promise<PolledRecord> {
    const id = appKeyString(app);
    const existing = this.#statuses.get(id);
    // As the table: a write first when the app is likely new, refused (and billed) when it was recorded after all.
    if (options.likelyNew && existing) this.counts.writes += 1;
    const stored = options.likelyNew && !existing ? undefined : this.#read(existing);
    const observedAt = now.toISOString();
    const recorded = copy(status);
    const print = fingerprint(recorded);
    // An observation older than the stored one is news from the past: drop it.
    if (stored && stored.observedAt > observedAt) {
      return { changed: false, written: false, created: false, outcome: 'older' };
    }
    if (stored && isDeepStrictEqual(stored.status, recorded)) {
      const age = now.getTime() - Date.parse(stored.observedAt);
      if (options.refreshAfterMs === undefined || age < options.refreshAfterMs) {
        const polled = { fingerprint: print, observedAt: stored.observedAt };
        return { changed: false, written: false, created: false, outcome: 'unchanged', polled };
      }
      this.#write(id, this.#statuses, { ...stored, observedAt });
      const polled = { fingerprint: print, observedAt };
      return { changed: false, written: true, created: false, outcome: 'unchanged', polled };
    }
    this.#write(id, this.#statuses, { app, status: recorded, observedAt, changedAt: observedAt });
    const polled = { fingerprint: print, observedAt };
    return { changed: true, written: true, created: stored === undefined, outcome: 'written', polled };
  }

  async createPolledStatuses(
    observations: readonly { app: AppKey; status: TargetStatus }[],
    now: Date,
  ): Promise<CreatedPolledStatus[]> {
    // As the table: a consistent BatchGetItem per 100 apps, then a BatchWriteItem per 25 new ones.
    this.counts.reads += Math.ceil(observations.length / 100);
    const observedAt = now.toISOString();
    const created: CreatedPolledStatus[] = [];
    for (const { app, status } of observations) {
      const id = appKeyString(app);
      if (this.#statuses.has(id)) continue;
      const item = copy({ app, status, observedAt, changedAt: observedAt });
      this.#statuses.set(id, item);
      created.push({ app, polled: { fingerprint: fingerprint(item.status), observedAt } });
    }
    this.counts.writes += Math.ceil(created.length / 25);
    return created;
  }

  async putPollSummary(
    cluster: ObjectKey,
    kind: WatchedKind,
    version: string,
    changes: ReadonlyMap<string, PolledStatus | undefined>,
  ): Promise<boolean> {
    const id = pollSummaryId(cluster, kind);
    if (!this.#pairInUse(id)) return false;
    const summary = this.#summaryOf(id);
    if (String(summary.version) !== version) return false;
    this.counts.writes += 1;
    const entries = new Map(summary.entries);
    for (const [name, entry] of changes) {
      if (entry) entries.set(name, copy(entry));
      else entries.delete(name);
    }
    this.#pollSummaries.set(id, { version: summary.version + 1, entries });
    return true;
  }

  async forgetPolledStatus(app: AppKey): Promise<void> {
    const id = pollSummaryId(app.cluster, app.kind);
    this.counts.writes += 1;
    // As the table: no usage, no summary; else the version moves on even without an entry (a poll that read before
    // may be about to write one).
    if (!this.#pairInUse(id)) return;
    const summary = this.#summaryOf(id);
    const entries = new Map(summary.entries);
    entries.delete(objectKeyString(app));
    this.#pollSummaries.set(id, { version: summary.version + 1, entries });
  }

  /** A pair's summary, or the empty one at the first version that nothing has written yet. */
  #summaryOf(id: string): { version: number; entries: ReadonlyMap<string, PolledStatus> } {
    return this.#pollSummaries.get(id) ?? { version: 0, entries: new Map<string, PolledStatus>() };
  }

  /** As the table: a pair's summary lives on its usage items, so a pair no pipeline uses has none to write. */
  #pairInUse(id: string): boolean {
    return this.#usage().some((usage) => pollSummaryId(usage.cluster, usage.kind) === id);
  }

  // ---------------------------------------------------------------- poll digests

  async getConfigurationGeneration(): Promise<number> {
    this.counts.reads += 1;
    return this.#configurationGeneration;
  }

  async getPollDigests(
    clusters: readonly ObjectKey[],
  ): Promise<Map<string, ReadonlyMap<WatchedKind, StoredPairDigest>>> {
    const found = new Map<string, ReadonlyMap<WatchedKind, StoredPairDigest>>();
    // One read per poll group, as the DynamoDB store's Query per group.
    this.counts.reads += new Set(clusters.map(pollGroupOf)).size;
    for (const id of new Set(clusters.map(objectKeyString))) {
      const digests = this.#pollDigests.get(id);
      if (digests) found.set(id, structuredClone(digests));
    }
    return found;
  }

  async putPollDigest(cluster: ObjectKey, kind: WatchedKind, digest: PairDigest, seen: number): Promise<boolean> {
    this.counts.writes += 1;
    const digests = this.#digestsOf(cluster);
    if ((digests.get(kind)?.invalidations ?? 0) !== seen) return false;
    digests.set(kind, { digest: copy(digest), invalidations: seen });
    return true;
  }

  async invalidatePollDigest(cluster: ObjectKey, kind: WatchedKind): Promise<void> {
    this.counts.writes += 1;
    const digests = this.#digestsOf(cluster);
    digests.set(kind, { invalidations: (digests.get(kind)?.invalidations ?? 0) + 1 });
  }

  #digestsOf(cluster: ObjectKey): Map<WatchedKind, StoredPairDigest> {
    const id = objectKeyString(cluster);
    const digests = this.#pollDigests.get(id) ?? new Map<WatchedKind, StoredPairDigest>();
    this.#pollDigests.set(id, digests);
    return digests;
  }

  async getPollPlan(): Promise<PollPlan | undefined> {
    this.counts.reads += 1;
    return this.#pollPlan && copy(this.#pollPlan);
  }

  async putPollPlan(plan: PollPlan): Promise<boolean> {
    this.counts.writes += 1;
    this.#pollPlan = copy(plan);
    return true;
  }

  // ---------------------------------------------------------------- approvals

  async getApproval(pipeline: ObjectKey, env: string): Promise<ApprovalMarker | undefined> {
    return this.#read(this.#approvals.get(objectKeyString(pipeline))?.get(env));
  }

  async listApprovals(pipeline: ObjectKey): Promise<ApprovalMarker[]> {
    this.counts.reads += 1;
    const markers = [...(this.#approvals.get(objectKeyString(pipeline))?.values() ?? [])];
    return sortedBy(markers, (marker) => part(marker.env)).map(copy);
  }

  async requestApproval(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    now: Date,
  ): Promise<ApprovalRequestOutcome> {
    const current = this.#read(this.#approvals.get(objectKeyString(pipeline))?.get(env));
    const step = requestStep(current, revision);
    if (step !== 'request') return step;
    this.#write(env, this.#markersOf(pipeline), { env, revision, requestedAt: now.toISOString() });
    return 'requested';
  }

  async approve(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    by: string,
    now: Date,
    required = 1,
    countedAs?: string,
  ): Promise<ApproveOutcome> {
    const current = this.#read(this.#approvals.get(objectKeyString(pipeline))?.get(env));
    const approval = approvalBy(by, countedAs);
    const step = approvalStep(current, revision, approval, required);
    if (!isApprovalWrite(step)) return step;
    // A write is only ever the step for a marker waiting for `revision`.
    if (!current) return 'not-waiting';
    const approved = { approvedAt: now.toISOString(), approvedBy: by };
    switch (step) {
      // A policy of one approves as before policies existed, without a list of approvals.
      case 'approve':
      case 'approve-counted':
        this.#write(env, this.#markersOf(pipeline), { ...current, ...approved });
        return 'approved';
      case 'count':
      case 'count-and-approve': {
        const approvals = [...(current.approvals ?? []), approvalEntry(approval, now)];
        const last = step === 'count-and-approve';
        this.#write(env, this.#markersOf(pipeline), { ...current, approvals, ...(last ? approved : {}) });
        return last ? 'approved' : 'counted';
      }
    }
  }

  async reject(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    by: string,
    reason: string,
    now: Date,
  ): Promise<RejectOutcome> {
    const current = this.#read(this.#approvals.get(objectKeyString(pipeline))?.get(env));
    const waiting = rejectStep(current, revision);
    if (typeof waiting === 'string') return waiting;
    const rejection = { rejectedAt: now.toISOString(), rejectedBy: by, rejectionReason: reason };
    this.#write(env, this.#markersOf(pipeline), { ...waiting, ...rejection });
    return 'rejected';
  }

  async clearApproval(pipeline: ObjectKey, env: string, revision: string): Promise<boolean> {
    const markers = this.#markersOf(pipeline);
    if (markers.get(env)?.revision !== revision) return false;
    this.#delete(env, markers);
    return true;
  }

  #markersOf(pipeline: ObjectKey): Map<string, ApprovalMarker> {
    const id = objectKeyString(pipeline);
    const markers = this.#approvals.get(id) ?? new Map<string, ApprovalMarker>();
    this.#approvals.set(id, markers);
    return markers;
  }

  // ---------------------------------------------------------------- promotion records

  // ---------------------------------------------------------------- verification records

  async listVerifications(pipeline: ObjectKey): Promise<VersionedVerificationRecord[]> {
    this.counts.reads += 1;
    return [...(this.#verifications.get(objectKeyString(pipeline))?.values() ?? [])].map(copy);
  }

  async putVerification(pipeline: ObjectKey, record: VerificationRecord, expectedVersion: number): Promise<boolean> {
    this.counts.writes += 1;
    const id = objectKeyString(pipeline);
    const byEnv = this.#verifications.get(id) ?? new Map<string, VersionedVerificationRecord>();
    if ((byEnv.get(record.env)?.version ?? 0) !== expectedVersion) return false;
    byEnv.set(record.env, copy({ ...record, pipeline: pipelineKeyOf(pipeline), version: expectedVersion + 1 }));
    this.#verifications.set(id, byEnv);
    return true;
  }

  // ---------------------------------------------------------------- evidence of a release train's members

  async recordPromotionEvidence(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    evidence: PromotionEvidence,
  ): Promise<void> {
    this.counts.writes += 1;
    this.#evidence.set(`${objectKeyString(pipeline)} ${env} ${revision}`, copy(evidence));
  }

  async getPromotionEvidence(
    pipeline: ObjectKey,
    env: string,
    revision: string,
  ): Promise<PromotionEvidence | undefined> {
    this.counts.reads += 1;
    const evidence = this.#evidence.get(`${objectKeyString(pipeline)} ${env} ${revision}`);
    return evidence && copy(evidence);
  }

  // ---------------------------------------------------------------- served inputs

  async getServedInput(pipeline: ObjectKey, env: string): Promise<ServedInput | undefined> {
    this.counts.reads += 1;
    const input = this.#servedInputs.get(objectKeyString(pipeline))?.get(env);
    return input && copy(input);
  }

  async listServedInputs(pipeline: ObjectKey): Promise<ServedInput[]> {
    this.counts.reads += 1;
    return [...(this.#servedInputs.get(objectKeyString(pipeline))?.values() ?? [])].map(copy);
  }

  async putServedInput(pipeline: ObjectKey, input: ServedInput): Promise<void> {
    this.counts.writes += 1;
    const id = objectKeyString(pipeline);
    const byEnv = this.#servedInputs.get(id) ?? new Map<string, ServedInput>();
    byEnv.set(input.env, copy(input));
    this.#servedInputs.set(id, byEnv);
  }

  async seedServedInput(pipeline: ObjectKey, input: ServedInput): Promise<boolean> {
    if (this.#servedInputs.get(objectKeyString(pipeline))?.has(input.env)) return false;
    await this.putServedInput(pipeline, input);
    return true;
  }

  async getPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
  ): Promise<VersionedPromotionRecord | undefined> {
    return this.#read(this.#promotions.get(promotionId(pipeline, env, revision)));
  }

  async listPromotions(pipeline: ObjectKey): Promise<VersionedPromotionRecord[]> {
    this.counts.reads += 1;
    const id = objectKeyString(pipeline);
    const records = [...this.#promotions.values()].filter((record) => objectKeyString(record.pipeline) === id);
    return sortedBy(records, (record) => `${part(record.env)}#${part(record.revision)}`).map(copy);
  }

  async createPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    now: Date,
    claim?: PromotionClaim,
  ): Promise<{ created: boolean; record: VersionedPromotionRecord }> {
    const id = promotionId(pipeline, env, revision);
    const existing = this.#promotions.get(id);
    // As the table: the conditional put comes first and is billed whether or not it wins; only a refused one is
    // followed by a read of the record that was there.
    if (existing) {
      this.counts.writes += 1;
      this.counts.reads += 1;
      return { created: false, record: copy(existing) };
    }
    const fresh = newPromotionRecord(pipelineKeyOf(pipeline), env, revision, now, claim);
    this.#write(id, this.#promotions, fresh);
    return { created: true, record: copy(fresh) };
  }

  async claimPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    owner: string,
    leaseMs: number,
    now: Date,
  ): Promise<VersionedPromotionRecord | undefined> {
    const current = this.#read(this.#promotions.get(promotionId(pipeline, env, revision)));
    if (!current || !isClaimable(promotionStage(current, now))) return undefined;
    const { retryAt: _retryAt, ...kept } = current;
    const claimed: VersionedPromotionRecord = {
      ...kept,
      state: 'in-progress',
      attempts: current.attempts + 1,
      version: current.version + 1,
      owner,
      leaseExpiresAt: new Date(now.getTime() + leaseMs).toISOString(),
      updatedAt: now.toISOString(),
    };
    this.#write(promotionId(pipeline, env, revision), this.#promotions, claimed);
    return copy(claimed);
  }

  async completePromotion(claimed: VersionedPromotionRecord, result: string | undefined, now: Date): Promise<boolean> {
    return this.#finish(claimed, now, ['leaseExpiresAt', 'owner', 'retryAt', 'error', 'failureKind', 'pullRequest'], {
      state: 'succeeded',
      ...(result === undefined ? {} : { result }),
    });
  }

  async recordPullRequestState(
    claimed: VersionedPromotionRecord,
    state: PullRequestState,
    now: Date,
  ): Promise<boolean> {
    const id = promotionId(claimed.pipeline, claimed.env, claimed.revision);
    const current = this.#promotions.get(id);
    this.counts.writes += 1;
    if (current?.version !== claimed.version) return false;
    // As the table: `updatedAt` stays, the promotion itself did not change.
    this.#promotions.set(
      id,
      copy({ ...current, pullRequest: { state, seenAt: now.toISOString() }, version: current.version + 1 }),
    );
    return true;
  }

  async recordHostDeployment(claimed: VersionedPromotionRecord, deployment: HostDeploymentRecord): Promise<boolean> {
    const id = promotionId(claimed.pipeline, claimed.env, claimed.revision);
    const current = this.#promotions.get(id);
    this.counts.writes += 1;
    if (current?.version !== claimed.version) return false;
    const { hostDeploymentClaimedUntil: _claim, ...rest } = current;
    this.#promotions.set(id, copy({ ...rest, hostDeployment: { ...deployment }, version: current.version + 1 }));
    return true;
  }

  async claimHostDeployment(
    claimed: VersionedPromotionRecord,
    until: Date,
  ): Promise<VersionedPromotionRecord | undefined> {
    const id = promotionId(claimed.pipeline, claimed.env, claimed.revision);
    const current = this.#promotions.get(id);
    this.counts.writes += 1;
    if (current?.version !== claimed.version) return undefined;
    const next = { ...current, hostDeploymentClaimedUntil: until.toISOString(), version: current.version + 1 };
    this.#promotions.set(id, copy(next));
    return copy(next);
  }

  async failPromotion(
    claimed: VersionedPromotionRecord,
    error: string,
    retryAt: Date | undefined,
    now: Date,
    failureKind?: PromotionFailureKind,
  ): Promise<boolean> {
    const change = {
      state: 'failed' as const,
      error,
      ...(retryAt ? { retryAt: retryAt.toISOString() } : {}),
      ...(failureKind ? { failureKind } : {}),
    };
    const remove = [
      'leaseExpiresAt',
      'owner',
      ...(retryAt ? [] : ['retryAt']),
      ...(failureKind ? [] : ['failureKind']),
    ];
    return this.#finish(claimed, now, remove as (keyof VersionedPromotionRecord)[], change);
  }

  /** Ends the attempt `claimed` describes, only if nobody moved the record since (its version). */
  #finish(
    claimed: VersionedPromotionRecord,
    now: Date,
    remove: readonly (keyof VersionedPromotionRecord)[],
    set: Partial<VersionedPromotionRecord>,
  ): boolean {
    const id = promotionId(claimed.pipeline, claimed.env, claimed.revision);
    const current = this.#promotions.get(id);
    this.counts.writes += 1;
    if (current?.version !== claimed.version) return false;
    const next: Partial<VersionedPromotionRecord> = { ...current };
    for (const field of remove) delete next[field];
    this.#promotions.set(
      id,
      copy({ ...next, ...set, version: current.version + 1, updatedAt: now.toISOString() } as VersionedPromotionRecord),
    );
    return true;
  }

  // ---------------------------------------------------------------- audit trail

  async appendAudit(entry: AuditEntry): Promise<void> {
    const id = objectKeyString(entry.pipeline);
    const entries = this.#audit.get(id) ?? [];
    this.counts.writes += 1;
    entries.push({ entry: copy(entry), sequence: (this.#auditSequence += 1) });
    this.#audit.set(id, entries);
    return;
  }

  async listAudit(pipeline: ObjectKey, page: PageRequest = {}): Promise<Page<AuditEntry>> {
    const sortKey = ({ entry, sequence }: StoredAuditEntry) => `${entry.at}#${String(sequence).padStart(12, '0')}`;
    const newestFirst = sortedBy(this.#audit.get(objectKeyString(pipeline)) ?? [], sortKey).reverse();
    const result = this.#page(newestFirst, sortKey, page, 'descending');
    return { ...result, items: result.items.map((stored) => stored.entry) };
  }

  // ---------------------------------------------------------------- notifications to people

  async claimNotification(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    kind: string,
    _now: Date,
  ): Promise<boolean> {
    // A conditional put: it is counted as a write whether or not it wins. Nothing expires in memory.
    this.counts.writes += 1;
    const id = JSON.stringify([pipeline.namespace, pipeline.name, env, revision, kind]);
    if (this.#notifications.has(id)) return false;
    this.#notifications.add(id);
    return true;
  }

  // ---------------------------------------------------------------- stop switches

  async setFreeze(freeze: FreezeSwitch): Promise<void> {
    // The table keeps a pipeline's key only, whatever object the scope was given as.
    const scope = 'pipeline' in freeze.scope ? { pipeline: pipelineKeyOf(freeze.scope.pipeline) } : freeze.scope;
    this.#write(freezeSortKey(freeze.scope, freeze.env), this.#freezes, { ...freeze, scope });
  }

  async clearFreezes(scope: FreezeScope, env?: string): Promise<FreezeSwitch[]> {
    // One query for a whole scope, then a delete per switch; one environment's switch is deleted by its key.
    if (env === undefined) this.counts.reads += 1;
    const doomed =
      env === undefined
        ? [...this.#freezes.keys()].filter((sortKey) => sortKey.startsWith(freezeScopePrefix(scope)))
        : [freezeSortKey(scope, env)];
    const removed: FreezeSwitch[] = [];
    for (const sortKey of doomed.sort()) {
      const freeze = this.#freezes.get(sortKey);
      this.#delete(sortKey, this.#freezes);
      if (freeze) removed.push(copy(freeze));
    }
    return removed;
  }

  async listFreezes(): Promise<FreezeSwitch[]> {
    this.counts.reads += 1;
    return sortedBy([...this.#freezes.entries()], ([sortKey]) => sortKey).map(([, freeze]) => copy(freeze));
  }

  // ---------------------------------------------------------------- PipelineSets

  async applyPipelineSet(document: PipelineSetDocument, now: Date, owner?: ObjectOwner): Promise<{ changed: boolean }> {
    const id = objectKeyString(keyOfMetadata(document.metadata));
    const existing = this.#read(this.#pipelineSets.get(id));
    const applied = copy(document);
    if (existing && isDeepStrictEqual(existing.document, applied) && sameOwningSource(existing.owner, owner)) {
      return { changed: false };
    }
    this.#write(id, this.#pipelineSets, {
      document: applied,
      generation: (existing?.generation ?? 0) + 1,
      appliedAt: now.toISOString(),
      ...(owner ? { owner } : {}),
      ...(existing?.appsFound ? { appsFound: existing.appsFound } : {}),
    });
    this.#configurationGeneration += 1;
    return { changed: true };
  }

  async recordPipelineSetApps(
    key: ObjectKey,
    generation: number,
    appsFound: Record<string, FoundApp[]>,
  ): Promise<boolean> {
    const id = objectKeyString(key);
    const existing = this.#read(this.#pipelineSets.get(id));
    if (!existing || existing.generation !== generation) {
      this.counts.writes += 1; // a conditional update, counted whether or not it wins
      return false;
    }
    this.#write(id, this.#pipelineSets, { ...existing, appsFound: copy(appsFound) });
    return true;
  }

  async getPipelineSet(key: ObjectKey): Promise<StoredPipelineSet | undefined> {
    return this.#read(this.#pipelineSets.get(objectKeyString(key)));
  }

  async listPipelineSets(page: PageRequest = {}): Promise<Page<StoredPipelineSet>> {
    const sortKey = (stored: StoredPipelineSet) => objectSortKey(keyOfMetadata(stored.document.metadata));
    return this.#page(sortedBy([...this.#pipelineSets.values()], sortKey), sortKey, page);
  }

  async deletePipelineSet(key: ObjectKey): Promise<boolean> {
    const id = objectKeyString(key);
    if (!this.#read(this.#pipelineSets.get(id))) return false;
    this.#delete(id, this.#pipelineSets);
    this.#configurationGeneration += 1;
    return true;
  }

  // ---------------------------------------------------------------- ConfigSources

  async applyConfigSource(document: ConfigSourceDocument, now: Date): Promise<{ changed: boolean }> {
    const id = objectKeyString(keyOfMetadata(document.metadata));
    const existing = this.#read(this.#configSources.get(id));
    const applied = copy(document);
    if (existing && isDeepStrictEqual(existing.source.document, applied)) return { changed: false };
    this.#write(id, this.#configSources, {
      ...existing,
      source: {
        document: applied,
        generation: (existing?.source.generation ?? 0) + 1,
        appliedAt: now.toISOString(),
        status: existing?.source.status ?? pendingStatus(now),
      },
    });
    return { changed: true };
  }

  async getConfigSource(key: ObjectKey): Promise<StoredConfigSource | undefined> {
    return this.#read(this.#configSources.get(objectKeyString(key)))?.source;
  }

  async listConfigSources(page: PageRequest = {}): Promise<Page<StoredConfigSource>> {
    const sortKey = (stored: StoredConfigSource) => objectSortKey(keyOfMetadata(stored.document.metadata));
    const sources = [...this.#configSources.values()].map((held) => held.source);
    return this.#page(sortedBy(sources, sortKey), sortKey, page);
  }

  async deleteConfigSource(key: ObjectKey): Promise<boolean> {
    const id = objectKeyString(key);
    if (!this.#read(this.#configSources.get(id))) return false;
    this.#delete(id, this.#configSources);
    return true;
  }

  async claimConfigSync(
    source: ObjectKey,
    revision: string,
    generation: number,
    now: Date,
    leaseMs: number,
  ): Promise<ConfigSyncClaim | undefined> {
    const id = objectKeyString(source);
    const held = this.#read(this.#configSources.get(id));
    this.counts.writes += 1; // a conditional update, counted whether or not it wins
    if (!held || held.source.generation !== generation) return undefined;
    if (held.attempted === attemptKey(generation, revision)) return undefined;
    if (held.lease && held.lease.until >= now.getTime()) return undefined;
    const claim = { source, revision, generation, token: randomUUID() };
    this.#configSources.set(id, copy({ ...held, lease: { token: claim.token, until: now.getTime() + leaseMs } }));
    return claim;
  }

  async finishConfigSync(claim: ConfigSyncClaim, result: ConfigSyncResult, now: Date): Promise<boolean> {
    const id = objectKeyString(claim.source);
    const held = this.#read(this.#configSources.get(id));
    if (!held || held.lease?.token !== claim.token) return false;
    this.#write(id, this.#configSources, {
      source: { ...held.source, status: syncedStatus(held.source.status, claim, result, now) },
      attempted: result.attempted ? attemptKey(claim.generation, claim.revision) : held.attempted,
    });
    return true;
  }

  async appendConfigAudit(entry: ConfigAuditEntry): Promise<void> {
    const id = objectKeyString(entry.configSource);
    const trail = this.#configAudit.get(id) ?? [];
    this.counts.writes += 1;
    trail.push({ entry: copy(entry), sequence: this.#auditSequence++ });
    this.#configAudit.set(id, trail);
  }

  async listConfigAudit(source: ObjectKey, page: PageRequest = {}): Promise<Page<ConfigAuditEntry>> {
    const trail = this.#configAudit.get(objectKeyString(source)) ?? [];
    const sortKey = ({ entry, sequence }: { entry: ConfigAuditEntry; sequence: number }) =>
      `${entry.at}#${String(sequence).padStart(12, '0')}`;
    const newestFirst = sortedBy(trail, sortKey).reverse();
    const result = this.#page(newestFirst, sortKey, page, 'descending');
    return { items: result.items.map(({ entry }) => entry), ...(result.cursor ? { cursor: result.cursor } : {}) };
  }

  // ---------------------------------------------------------------- reading and writing items

  #read<T>(value: T | undefined): T | undefined {
    this.counts.reads += 1;
    return value === undefined ? undefined : copy(value);
  }

  #write<T>(id: string, items: Map<string, T>, value: T): void {
    this.counts.writes += 1;
    items.set(id, copy(value));
  }

  #delete<T>(id: string, items: Map<string, T>): void {
    this.counts.writes += 1;
    items.delete(id);
  }

  /**
   * One page of `sorted` after the cursor's key. As with DynamoDB's Limit, a full page carries a cursor even when
   * nothing follows it: the next page is then empty and has none.
   */
  #page<T>(
    sorted: readonly T[],
    sortKey: (item: T) => string,
    page: PageRequest,
    order: 'ascending' | 'descending' = 'ascending',
  ): Page<T> {
    this.counts.reads += 1;
    const after = decodeCursor(page.cursor);
    const rest =
      after === undefined
        ? sorted
        : sorted.filter((item) => (order === 'ascending' ? sortKey(item) > after : sortKey(item) < after));
    const items = page.limit === undefined ? [...rest] : rest.slice(0, page.limit);
    const last = items.at(-1);
    const full = page.limit !== undefined && items.length === page.limit;
    return { items: items.map(copy), ...(full && last !== undefined ? { cursor: encodeCursor(sortKey(last)) } : {}) };
  }
}

/** A JSON copy: what a DynamoDB item keeps of a value (undefined fields are dropped). */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function observed({ status, observedAt, changedAt }: StoredStatus): ObservedTargetStatus {
  return { status, observedAt, changedAt };
}

/** Key parts are URI-encoded in the table, so the memory store sorts by the same strings. */
function part(value: string): string {
  return encodeURIComponent(value);
}

function objectSortKey(key: ObjectKey): string {
  return `${part(key.namespace)}/${part(key.name)}`;
}

/** As the table keys a switch: `*` stands for every pipeline or every environment, and is encoded in names. */
function freezeScopePrefix(scope: FreezeScope): string {
  const freezePart = (value: string) => part(value).replaceAll('*', '%2A');
  const name =
    'installation' in scope ? '*' : `${freezePart(scope.pipeline.namespace)}/${freezePart(scope.pipeline.name)}`;
  return `${name}#`;
}

function freezeSortKey(scope: FreezeScope, env: string | undefined): string {
  return `${freezeScopePrefix(scope)}${env === undefined ? '*' : part(env).replaceAll('*', '%2A')}`;
}

function promotionId(pipeline: ObjectKey, env: string, revision: string): string {
  return `${objectSortKey(pipeline)}#${part(env)}#${part(revision)}`;
}

function clusterKeyOf(document: GitopsClusterDocument): ObjectKey {
  return { namespace: document.metadata.namespace ?? 'default', name: document.metadata.name };
}

function sortedBy<T>(items: readonly T[], sortKey: (item: T) => string): T[] {
  return [...items].sort((a, b) => {
    const [x, y] = [sortKey(a), sortKey(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function encodeCursor(sortKey: string): string {
  return Buffer.from(JSON.stringify({ after: sortKey })).toString('base64url');
}

function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && typeof (value as { after?: unknown }).after === 'string') {
      return (value as { after: string }).after;
    }
  } catch {
    // fall through to the error below
  }
  throw new Error('invalid page cursor');
}

/** Equal statuses (whatever their key order) give equal fingerprints; memory has no need to hash them. */
function fingerprint(status: TargetStatus): string {
  return canonicalJson(status);
}

function pollSummaryId(cluster: ObjectKey, kind: WatchedKind): string {
  return `${objectKeyString(cluster)}/${kind}`;
}
