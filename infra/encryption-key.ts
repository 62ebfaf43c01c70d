// A customer managed KMS key for the controller's data (the `encryptionKey` prop): what the functions and operators
// need on it, and the key policy statement CloudWatch Logs needs before it can encrypt a log group with it.
import { Annotations, Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

/**
 * What a caller needs on the key of an encrypted table, queue or secret: DynamoDB and Secrets Manager decrypt (and
 * describe) the key for reads, DynamoDB writes and SQS sends encrypt with a data key, SQS receives decrypt. Spelled
 * out (no `kms:GenerateDataKey*`), so no wildcard action reaches a policy.
 */
export const KEY_USE_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'] as const;
/** Reading an encrypted table only. */
export const KEY_READ_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey'] as const;

/** The id of the warning when the key policy cannot be edited (an imported key). */
export const LOGS_KEY_POLICY_WARNING = 'pipeline-controller:encryptionKeyNeedsLogsStatement';

/**
 * The statement AWS documents for a log group encrypted with a customer managed key ("Encrypt log data in CloudWatch
 * Logs using AWS KMS"): the regional Logs service may use the key for log groups of this account and region only.
 */
export function cloudWatchLogsKeyStatement(): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'AllowCloudWatchLogsOfThisAccountAndRegion',
    principals: [new iam.ServicePrincipal(`logs.${Aws.REGION}.amazonaws.com`)],
    actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
    resources: ['*'],
    conditions: {
      ArnLike: {
        'kms:EncryptionContext:aws:logs:arn': `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:*`,
      },
    },
  });
}

/**
 * Lets CloudWatch Logs use the key: a key defined in the app gets the statement; an imported key's policy cannot be
 * changed from here, so the synth warns with what to add (infra/README.md, "Encryption").
 */
export function allowCloudWatchLogs(scope: Construct, key: kms.IKey): void {
  const { statementAdded } = key.addToResourcePolicy(cloudWatchLogsKeyStatement(), true);
  if (statementAdded) return;
  Annotations.of(scope).addWarningV2(
    LOGS_KEY_POLICY_WARNING,
    'encryptionKey is imported, so its key policy cannot be changed here: add a statement that allows the principal ' +
      'logs.<region>.amazonaws.com kms:Encrypt*, kms:Decrypt*, kms:ReEncrypt*, kms:GenerateDataKey* and kms:Describe* ' +
      'on condition ArnLike kms:EncryptionContext:aws:logs:arn = arn:<partition>:logs:<region>:<account>:log-group:* ' +
      '(infra/README.md, "Encryption"), or CloudFormation cannot create the log groups.',
  );
}

/** The distinct keys among those given, by ARN: one key may protect several of the resources. */
export function distinctKeys(keys: readonly (kms.IKey | undefined)[]): kms.IKey[] {
  const seen = new Map<string, kms.IKey>();
  for (const key of keys) if (key && !seen.has(key.keyArn)) seen.set(key.keyArn, key);
  return [...seen.values()];
}
