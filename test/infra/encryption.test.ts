// The `encryptionKey` prop: a customer managed key protects the table, both queues, the master key secret and the
// log groups; the functions may use it; CloudWatch Logs may use it (or the synth says what to add to an imported
// key's policy); cdk-nag stays clean.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import { LOGS_KEY_POLICY_WARNING } from '../../infra/encryption-key.js';
import { ACCOUNT, asList, REGION, render, resources, statementsOfRole, synthConstruct } from './synth.js';

const KEY_USE = ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'];

const withKey = synthConstruct((stack) => ({ encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }) }));
const { template, controller } = withKey;
const keyArn = { 'Fn::GetAtt': [withKey.logicalId(controller.encryptionKey as kms.Key), 'Arn'] };

describe('a customer managed key', () => {
  it('encrypts the table, both queues, the master key secret and every log group', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: keyArn },
    });
    const queues = Object.values(resources(template, 'AWS::SQS::Queue'));
    assert.equal(queues.length, 2);
    for (const queue of queues) {
      assert.deepEqual(queue.Properties.KmsMasterKeyId, keyArn);
      assert.equal(queue.Properties.SqsManagedSseEnabled, undefined);
    }
    template.hasResourceProperties('AWS::SecretsManager::Secret', { KmsKeyId: keyArn });
    const logGroups = Object.values(resources(template, 'AWS::Logs::LogGroup'));
    assert.equal(logGroups.length, 3);
    for (const group of logGroups) assert.deepEqual(group.Properties.KmsKeyId, keyArn);
  });

  it('lets CloudWatch Logs of this account and region use it (or CloudFormation cannot create the log groups)', () => {
    const [key] = Object.values(resources(template, 'AWS::KMS::Key'));
    const statements = (key?.Properties.KeyPolicy as { Statement: Record<string, unknown>[] }).Statement;
    const logs = statements.find((statement) =>
      render((statement.Principal as { Service?: unknown } | undefined)?.Service ?? '').startsWith('logs.'),
    );
    assert.ok(logs, 'a statement for the Logs service');
    assert.equal(render((logs.Principal as { Service: unknown }).Service), 'logs.<AWS::Region>.amazonaws.com');
    const arnLike = (logs.Condition as { ArnLike: Record<string, unknown> }).ArnLike;
    assert.deepEqual(Object.keys(logs.Condition as object), ['ArnLike']);
    assert.deepEqual(Object.keys(arnLike), ['kms:EncryptionContext:aws:logs:arn']);
    assert.equal(
      render(arnLike['kms:EncryptionContext:aws:logs:arn']),
      'arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:*',
    );
  });

  it('may be used by each function, which needs it for the table, the queues and the secret', () => {
    for (const name of ['receiver', 'verifier', 'poller'] as const) {
      const statements = statementsOfRole(template, withKey.logicalId(controller.roles[name]));
      const own = statements.find((statement) => statement.Sid === 'EncryptionKey');
      assert.ok(own, name);
      assert.deepEqual(asList(own.Action).sort(), KEY_USE, name);
      assert.deepEqual(asList(own.Resource), [keyArn], name);
    }
  });

  it('keeps cdk-nag clean', () => {
    const nagged = synthConstruct(
      (stack) => ({ encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }) }),
      { nag: true },
    );
    assert.doesNotThrow(() => nagged.app.synth({ force: true }));
  });
});

describe('an imported key', () => {
  const imported = synthConstruct((stack) => ({
    encryptionKey: kms.Key.fromKeyArn(
      stack,
      'Key',
      `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
    ),
  }));

  it('is used the same way, and the synth warns that its policy must let CloudWatch Logs use it', () => {
    imported.template.resourceCountIs('AWS::KMS::Key', 0);
    for (const group of Object.values(resources(imported.template, 'AWS::Logs::LogGroup'))) {
      assert.equal(
        group.Properties.KmsKeyId,
        `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
      );
    }
    const warnings = Annotations.fromStack(imported.stack).findWarning('*', Match.stringLikeRegexp('logs.<region>'));
    assert.equal(warnings.length, 1);
    assert.match(JSON.stringify(warnings[0]?.entry.data), /kms:EncryptionContext:aws:logs:arn/);
    assert.match(JSON.stringify(warnings[0]?.entry.data), new RegExp(LOGS_KEY_POLICY_WARNING));
  });
});

describe('without a key', () => {
  it('uses AWS managed encryption everywhere and grants no kms action', () => {
    const plain = synthConstruct(() => ({}));
    plain.template.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: true } });
    for (const queue of Object.values(resources(plain.template, 'AWS::SQS::Queue'))) {
      assert.equal(queue.Properties.SqsManagedSseEnabled, true);
    }
    for (const group of Object.values(resources(plain.template, 'AWS::Logs::LogGroup'))) {
      assert.equal(group.Properties.KmsKeyId, undefined);
    }
    for (const role of Object.values(plain.controller.roles)) {
      const actions = statementsOfRole(plain.template, plain.logicalId(role)).flatMap((s) => asList(s.Action));
      assert.ok(
        actions.every((action) => !action.startsWith('kms:')),
        actions.join(', '),
      );
    }
  });

  it('grants the key of a table brought by the user, which the construct does not encrypt itself', () => {
    const own = synthConstruct((stack) => {
      const key = new kms.Key(stack, 'TableKey', { enableKeyRotation: true });
      const table = new dynamodb.Table(stack, 'OwnTable', {
        partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
        sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
        encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
        encryptionKey: key,
        timeToLiveAttribute: 'expiresAt',
      });
      table.addGlobalSecondaryIndex({
        indexName: 'gsi1',
        partitionKey: { name: 'gsi1pk', type: dynamodb.AttributeType.STRING },
        sortKey: { name: 'gsi1sk', type: dynamodb.AttributeType.STRING },
      });
      return { table };
    });
    const tableKey = own.stack.node.findChild('TableKey') as kms.Key;
    for (const role of Object.values(own.controller.roles)) {
      const statement = statementsOfRole(own.template, own.logicalId(role)).find((s) => s.Sid === 'EncryptionKey');
      assert.deepEqual(asList(statement?.Resource), [{ 'Fn::GetAtt': [own.logicalId(tableKey), 'Arn'] }]);
    }
  });
});
