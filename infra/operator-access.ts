// What `pipelinectl --aws` may ask of a deployed stack: every AWS SDK command its AWS backend
// (lib/cli/backends/aws.ts and the adapters it builds on) can send, with the IAM actions that authorize it and the
// resources it is sent to. `PipelineController.grantOperate` and `grantRead` are built from this list, and
// test/infra/grants.test.ts checks that it names every command those sources send, so a new call in the CLI cannot
// leave an operator with AccessDenied.

/** The resources of a deployment an operator's command touches. */
export type OperatorResource =
  | 'table'
  /** The table's gsi1 index: listing pipelines and clusters queries it. */
  | 'tableIndex'
  | 'queue'
  | 'deadLetterQueue'
  /** `arn:…:secret:<prefix>*`: the configuration Secrets `apply` writes and `check` reads. */
  | 'configurationSecrets'
  | 'masterKeySecret'
  /** The CloudFormation stack, whose outputs `--stack` reads. */
  | 'stack'
  /** The `eksClusterArns` prop: `check` reads those clusters with the operator's credentials. */
  | 'eksClusters'
  /** The `assumeRoleArns` prop: `check` assumes those roles as the verifier does. */
  | 'clusterRoles';

/** Who needs a call: `read` is status, history, metrics, explain, get; `operate` is everything pipelinectl does. */
export type OperatorLevel = 'read' | 'operate';

export interface SentCall {
  readonly actions: readonly string[];
  readonly on: readonly OperatorResource[];
  readonly level: OperatorLevel;
  /** The pipelinectl commands that send it (documentation, and the reason it is on the list). */
  readonly by: string;
}

export interface UnsentCall {
  /** Why a command that appears in those sources never reaches AWS from pipelinectl, or needs no permission. */
  readonly notSent: string;
}

const read = (actions: string[], on: OperatorResource[], by: string): SentCall => ({ actions, on, level: 'read', by });
const operate = (actions: string[], on: OperatorResource[], by: string): SentCall => ({
  actions,
  on,
  level: 'operate',
  by,
});

/** By the SDK command's class name, as the sources write `new <Name>(…)`. */
export const CLI_AWS_CALLS: Readonly<Record<string, SentCall | UnsentCall>> = {
  // DynamoDB, through the Store (lib/store/dynamodb; lib-dynamodb's document commands).
  GetCommand: read(['dynamodb:GetItem'], ['table'], 'every command that reads a pipeline, cluster or approval'),
  BatchGetCommand: read(['dynamodb:BatchGetItem'], ['table'], 'status, explain (target statuses)'),
  QueryCommand: read(['dynamodb:Query'], ['table', 'tableIndex'], 'status, get, history, metrics (lists, trails)'),
  PutCommand: operate(['dynamodb:PutItem'], ['table'], 'apply, approve, retry (audit entries, definitions)'),
  UpdateCommand: operate(['dynamodb:UpdateItem'], ['table'], 'apply, approve, retry'),
  DeleteCommand: operate(['dynamodb:DeleteItem'], ['table'], 'delete, apply'),
  BatchWriteCommand: operate(['dynamodb:BatchWriteItem'], ['table'], 'apply, delete (the apps index)'),
  CreateTableCommand: {
    notSent: 'creates the local mode table (dynalite); a deployed table is made by CloudFormation',
  },
  BatchWriteItemCommand: {
    notSent:
      "restore's raw items, into a local data directory's table only (dynalite); pipelinectl restores no deployed table",
  },
  // SQS.
  SendMessageCommand: operate(['sqs:SendMessage'], ['queue'], 'apply, approve, retry, delete (checks)'),
  SendMessageBatchCommand: operate(['sqs:SendMessage'], ['queue'], 'dlq redrive (authorized as SendMessage)'),
  ChangeMessageVisibilityCommand: {
    notSent: "SqsQueue.changeVisibility, the verifier's redelivery delay: pipelinectl never receives from the queue",
  },
  ReceiveMessageCommand: operate(['sqs:ReceiveMessage'], ['deadLetterQueue'], 'dlq list, dlq redrive'),
  DeleteMessageBatchCommand: operate(['sqs:DeleteMessage'], ['deadLetterQueue'], 'dlq redrive'),
  ChangeMessageVisibilityBatchCommand: operate(
    ['sqs:ChangeMessageVisibility'],
    ['deadLetterQueue'],
    'dlq list, dlq redrive (releases what it looked at)',
  ),
  // Secrets Manager.
  GetSecretValueCommand: operate(
    ['secretsmanager:GetSecretValue'],
    ['configurationSecrets', 'masterKeySecret'],
    'check (kubeconfigs, Git tokens), apply (compares values), flux-config (the master key)',
  ),
  // Tags given at creation are authorized by TagResource too.
  CreateSecretCommand: operate(
    ['secretsmanager:CreateSecret', 'secretsmanager:TagResource'],
    ['configurationSecrets'],
    'apply',
  ),
  DescribeSecretCommand: operate(['secretsmanager:DescribeSecret'], ['configurationSecrets'], 'apply (purpose tag)'),
  PutSecretValueCommand: operate(['secretsmanager:PutSecretValue'], ['configurationSecrets'], 'apply'),
  TagResourceCommand: operate(['secretsmanager:TagResource'], ['configurationSecrets'], 'apply (purpose tag)'),
  UntagResourceCommand: operate(['secretsmanager:UntagResource'], ['configurationSecrets'], 'apply (purpose tag)'),
  // CloudFormation: `--stack` names the deployment.
  DescribeStacksCommand: read(['cloudformation:DescribeStacks'], ['stack'], 'every command given --stack'),
  // STS and EKS.
  GetCallerIdentityCommand: { notSent: 'sts:GetCallerIdentity needs no permission: every principal may call it' },
  DescribeClusterCommand: operate(['eks:DescribeCluster'], ['eksClusters'], 'check (GitopsClusters with spec.eks)'),
  AssumeRoleCommand: operate(['sts:AssumeRole'], ['clusterRoles'], 'check (spec.eks.roleArn)'),
};

export const isSent = (call: SentCall | UnsentCall): call is SentCall => 'actions' in call;

/** The actions on each resource a level needs: `operate` includes `read`. */
export function operatorActions(level: OperatorLevel): Map<OperatorResource, string[]> {
  const byResource = new Map<OperatorResource, Set<string>>();
  for (const call of Object.values(CLI_AWS_CALLS)) {
    if (!isSent(call) || (level === 'read' && call.level !== 'read')) continue;
    for (const resource of call.on) {
      const actions = byResource.get(resource) ?? new Set<string>();
      for (const action of call.actions) actions.add(action);
      byResource.set(resource, actions);
    }
  }
  return new Map([...byResource].map(([resource, actions]) => [resource, [...actions].sort()]));
}
