// The DynamoDB Store: one table, every entity module sharing the same client. Works against AWS, dynalite and
// DynamoDB Local alike (single-item conditional writes only: dynalite has no transactions).
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Store } from '../port.js';
import { DynamoApprovals } from './approvals.js';
import { DynamoAuditLog } from './audit.js';
import { DynamoConfigSources } from './config-sources.js';
import { DynamoConfiguration } from './configuration.js';
import { DynamoFreezes } from './freezes.js';
import { DynamoNotifications } from './notifications.js';
import { DynamoPipelineSets } from './pipeline-sets.js';
import { DynamoPollDigests } from './poll-digests.js';
import { DynamoPollSummaries } from './poll-summary.js';
import { DynamoPromotions } from './promotions.js';
import { tableContext } from './table.js';
import { DynamoTargetStatuses } from './target-status.js';
import { DynamoVerifications } from './verifications.js';
import { DynamoServedInputs } from './served-inputs.js';
import { DynamoPromotionEvidence } from './promotion-evidence.js';

export interface DynamoStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Days that audit entries and succeeded promotion records are kept (DynamoDB TTL). Default 90. */
  retentionDays?: number;
}

export function createDynamoStore(options: DynamoStoreOptions): Store {
  const table = tableContext(options.client, options.tableName, options.retentionDays);
  const configuration = new DynamoConfiguration(table);
  const statuses = new DynamoTargetStatuses(table);
  const pollSummaries = new DynamoPollSummaries(table);
  const approvals = new DynamoApprovals(table);
  const promotions = new DynamoPromotions(table);
  const verifications = new DynamoVerifications(table);
  const servedInputs = new DynamoServedInputs(table);
  const promotionEvidence = new DynamoPromotionEvidence(table);
  const audit = new DynamoAuditLog(table);
  const notifications = new DynamoNotifications(table);
  const freezes = new DynamoFreezes(table);
  const configSources = new DynamoConfigSources(table);
  const pipelineSets = new DynamoPipelineSets(table);
  const pollDigests = new DynamoPollDigests(table);
  /** Each write that changed the configuration moves its generation on, after the write (poll-digests.ts). */
  const changing = async <Result>(result: Result, changed: (result: Result) => boolean): Promise<Result> => {
    if (changed(result)) await pollDigests.bumpConfigurationGeneration();
    return result;
  };
  const hasChanged = ({ changed }: { changed: boolean }): boolean => changed;
  const isTrue = (done: boolean): boolean => done;
  return {
    applyPipeline: async (...args) => changing(await configuration.applyPipeline(...args), hasChanged),
    deletePipeline: async (...args) => changing(await configuration.deletePipeline(...args), isTrue),
    repairInterruptedApplies: async (...args) =>
      changing(await configuration.repairInterruptedApplies(...args), (settled) => settled > 0),
    getPipeline: (...args) => configuration.getPipeline(...args),
    listPipelines: (...args) => configuration.listPipelines(...args),
    applyCluster: async (...args) => changing(await configuration.applyCluster(...args), hasChanged),
    getCluster: (...args) => configuration.getCluster(...args),
    deleteCluster: async (...args) => changing(await configuration.deleteCluster(...args), isTrue),
    listClusters: (...args) => configuration.listClusters(...args),
    findTargets: (...args) => configuration.findTargets(...args),
    listClusterKinds: () => configuration.listClusterKinds(),
    getClusterKind: (...args) => configuration.getClusterKind(...args),
    getTargetStatus: (...args) => statuses.getTargetStatus(...args),
    getTargetStatuses: (...args) => statuses.getTargetStatuses(...args),
    recordTargetStatus: (...args) => statuses.recordTargetStatus(...args),
    getClusterKindPoll: (...args) => pollSummaries.getClusterKindPoll(...args),
    statusFingerprint: (...args) => pollSummaries.statusFingerprint(...args),
    recordPolledStatus: (...args) => statuses.recordPolledStatus(...args),
    createPolledStatuses: (...args) => statuses.createPolledStatuses(...args),
    putPollSummary: (...args) => pollSummaries.putPollSummary(...args),
    forgetPolledStatus: (...args) => pollSummaries.forgetPolledStatus(...args),
    getConfigurationGeneration: () => pollDigests.getConfigurationGeneration(),
    getPollDigests: (...args) => pollDigests.getPollDigests(...args),
    putPollDigest: (...args) => pollDigests.putPollDigest(...args),
    invalidatePollDigest: (...args) => pollDigests.invalidatePollDigest(...args),
    getPollPlan: () => pollDigests.getPollPlan(),
    putPollPlan: (...args) => pollDigests.putPollPlan(...args),
    getApproval: (...args) => approvals.getApproval(...args),
    listApprovals: (...args) => approvals.listApprovals(...args),
    requestApproval: (...args) => approvals.requestApproval(...args),
    approve: (...args) => approvals.approve(...args),
    reject: (...args) => approvals.reject(...args),
    clearApproval: (...args) => approvals.clearApproval(...args),
    getPromotion: (...args) => promotions.getPromotion(...args),
    listPromotions: (...args) => promotions.listPromotions(...args),
    createPromotion: (...args) => promotions.createPromotion(...args),
    claimPromotion: (...args) => promotions.claimPromotion(...args),
    completePromotion: (...args) => promotions.completePromotion(...args),
    recordPullRequestState: (...args) => promotions.recordPullRequestState(...args),
    recordHostDeployment: (...args) => promotions.recordHostDeployment(...args),
    claimHostDeployment: (...args) => promotions.claimHostDeployment(...args),
    failPromotion: (...args) => promotions.failPromotion(...args),
    listVerifications: (...args) => verifications.listVerifications(...args),
    putVerification: (...args) => verifications.putVerification(...args),
    recordPromotionEvidence: (...args) => promotionEvidence.recordPromotionEvidence(...args),
    getPromotionEvidence: (...args) => promotionEvidence.getPromotionEvidence(...args),
    getServedInput: (...args) => servedInputs.getServedInput(...args),
    listServedInputs: (...args) => servedInputs.listServedInputs(...args),
    putServedInput: (...args) => servedInputs.putServedInput(...args),
    seedServedInput: (...args) => servedInputs.seedServedInput(...args),
    appendAudit: (...args) => audit.appendAudit(...args),
    listAudit: (...args) => audit.listAudit(...args),
    claimNotification: (...args) => notifications.claimNotification(...args),
    setFreeze: (...args) => freezes.setFreeze(...args),
    clearFreezes: (...args) => freezes.clearFreezes(...args),
    listFreezes: () => freezes.listFreezes(),
    applyConfigSource: (...args) => configSources.applyConfigSource(...args),
    getConfigSource: (...args) => configSources.getConfigSource(...args),
    listConfigSources: (...args) => configSources.listConfigSources(...args),
    deleteConfigSource: (...args) => configSources.deleteConfigSource(...args),
    claimConfigSync: (...args) => configSources.claimConfigSync(...args),
    finishConfigSync: (...args) => configSources.finishConfigSync(...args),
    appendConfigAudit: (...args) => configSources.appendConfigAudit(...args),
    listConfigAudit: (...args) => configSources.listConfigAudit(...args),
    applyPipelineSet: async (...args) => changing(await pipelineSets.applyPipelineSet(...args), hasChanged),
    getPipelineSet: (...args) => pipelineSets.getPipelineSet(...args),
    listPipelineSets: (...args) => pipelineSets.listPipelineSets(...args),
    deletePipelineSet: async (...args) => changing(await pipelineSets.deletePipelineSet(...args), isTrue),
    recordPipelineSetApps: (...args) => pipelineSets.recordPipelineSetApps(...args),
  };
}
