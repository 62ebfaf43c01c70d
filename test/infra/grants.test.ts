// grantOperate and grantRead: what an operator's role gets for `pipelinectl --aws`, read from the synthesized
// template; and the list they are built from (infra/operator-access.ts) against the SDK commands the CLI's AWS
// backend can send, found by reading its sources.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { CLI_AWS_CALLS, isSent, type OperatorResource } from '../../infra/operator-access.js';
import type { PipelineController } from '../../infra/pipeline-controller.js';
import { ACCOUNT, asList, REGION, render, statementsOfRole, synthConstruct, type Statement } from './synth.js';
import { REPO_ROOT as ROOT } from '../support/repo-root.js';

const EKS_CLUSTER = `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod`;
const CLUSTER_ROLE = `arn:aws:iam::${ACCOUNT}:role/pipeline-controller-reader`;

/** A stack with the construct and two people's roles: one granted operate, one granted read. */
function withOperators(props: { encryptionKey?: boolean } = {}) {
  const roles = {} as Record<'operator' | 'reader', iam.Role>;
  const synthesized = synthConstruct(
    (stack) => ({
      eksClusterArns: [EKS_CLUSTER],
      assumeRoleArns: [CLUSTER_ROLE],
      ...(props.encryptionKey && { encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }) }),
    }),
    {
      then: (controller: PipelineController, stack) => {
        for (const name of ['operator', 'reader'] as const) {
          roles[name] = new iam.Role(stack, name, { assumedBy: new iam.AccountRootPrincipal() });
        }
        controller.grantOperate(roles.operator);
        controller.grantRead(roles.reader);
      },
    },
  );
  const id = (construct: Parameters<typeof synthesized.logicalId>[0]) => synthesized.logicalId(construct);
  const { controller } = synthesized;
  return {
    ...synthesized,
    statementsOf: (name: 'operator' | 'reader') => statementsOfRole(synthesized.template, id(roles[name])),
    arns: {
      table: `<${id(controller.table)}.Arn>`,
      index: `<${id(controller.table)}.Arn>/index/gsi1`,
      queue: `<${id(controller.queue)}.Arn>`,
      deadLetterQueue: `<${id(controller.deadLetterQueue)}.Arn>`,
      masterKey: `<${id(controller.masterKeySecret)}>`,
      secrets: `arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:pipeline-controller/*`,
      stack: '<AWS::StackId>',
      key: controller.encryptionKey ? `<${id(controller.encryptionKey)}.Arn>` : '',
    },
  };
}

/** Action → the resources it is allowed on, over all the statements (every one an unconditional Allow). */
function allowed(statements: Statement[]): Record<string, string[]> {
  const byAction: Record<string, Set<string>> = {};
  for (const statement of statements) {
    assert.equal(statement.Effect, 'Allow');
    assert.equal(statement.Condition, undefined);
    for (const action of asList(statement.Action)) {
      const resources = (byAction[action] ??= new Set());
      for (const resource of asList(statement.Resource)) resources.add(render(resource));
    }
  }
  return Object.fromEntries(Object.entries(byAction).map(([action, set]) => [action, [...set].sort()]));
}

describe('grantOperate', () => {
  const { statementsOf, arns } = withOperators();

  it('allows exactly what pipelinectl --aws sends, each on this deployment’s own resources', () => {
    assert.deepEqual(allowed(statementsOf('operator')), {
      'cloudformation:DescribeStacks': [arns.stack],
      'dynamodb:BatchGetItem': [arns.table],
      'dynamodb:BatchWriteItem': [arns.table],
      'dynamodb:DeleteItem': [arns.table],
      'dynamodb:GetItem': [arns.table],
      'dynamodb:PutItem': [arns.table],
      'dynamodb:Query': [arns.table, arns.index].sort(),
      'dynamodb:UpdateItem': [arns.table],
      'eks:DescribeCluster': [EKS_CLUSTER],
      'secretsmanager:CreateSecret': [arns.secrets],
      'secretsmanager:DescribeSecret': [arns.secrets],
      'secretsmanager:GetSecretValue': [arns.masterKey, arns.secrets].sort(),
      'secretsmanager:PutSecretValue': [arns.secrets],
      'secretsmanager:TagResource': [arns.secrets],
      'secretsmanager:UntagResource': [arns.secrets],
      'sqs:ChangeMessageVisibility': [arns.deadLetterQueue],
      'sqs:DeleteMessage': [arns.deadLetterQueue],
      'sqs:ReceiveMessage': [arns.deadLetterQueue],
      'sqs:SendMessage': [arns.queue],
      'sts:AssumeRole': [CLUSTER_ROLE],
    });
  });

  it('gives no eks or sts action when the deployment lists no clusters or roles', () => {
    const plain = synthConstruct(() => ({}), {
      then: (controller, stack) => {
        controller.grantOperate(new iam.Role(stack, 'Operator', { assumedBy: new iam.AccountRootPrincipal() }));
      },
    });
    const operator = plain.stack.node.findChild('Operator') as iam.Role;
    const actions = Object.keys(allowed(statementsOfRole(plain.template, plain.logicalId(operator))));
    assert.ok(actions.length > 10);
    assert.ok(
      actions.every((action) => !/^(eks|sts):/.test(action)),
      actions.join(', '),
    );
  });
});

describe('grantRead', () => {
  const { statementsOf, arns } = withOperators();

  it('allows reading the table and its index and finding the stack, nothing else', () => {
    assert.deepEqual(allowed(statementsOf('reader')), {
      'cloudformation:DescribeStacks': [arns.stack],
      'dynamodb:BatchGetItem': [arns.table],
      'dynamodb:GetItem': [arns.table],
      'dynamodb:Query': [arns.table, arns.index].sort(),
    });
  });
});

describe('grants with a customer managed key', () => {
  const { statementsOf, arns } = withOperators({ encryptionKey: true });

  it('add the key: to use it for operators, to decrypt the table for readers', () => {
    const operator = allowed(statementsOf('operator'));
    for (const action of ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']) {
      assert.deepEqual(operator[action], [arns.key], action);
    }
    const reader = allowed(statementsOf('reader'));
    assert.deepEqual(
      Object.keys(reader).filter((action) => action.startsWith('kms:')),
      ['kms:Decrypt', 'kms:DescribeKey'],
    );
    assert.deepEqual(reader['kms:Decrypt'], [arns.key]);
  });
});

// ---------------------------------------------------------------- the list against the CLI's sources

const AWS_BACKEND = resolve(ROOT, 'lib/cli/backends/aws.ts');

/**
 * `new <Name>Command(` in every file the AWS backend reaches through its relative imports, static or dynamic
 * (type-only imports send nothing and are not followed), by command, with the files that send it.
 */
function commandsSentFrom(entry: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, command = ''] of source.matchAll(/\bnew\s+([A-Z]\w*Command)\s*\(/g)) {
      found.set(command, [...(found.get(command) ?? []), relative(ROOT, file)]);
    }
    const specifiers = [
      ...[...source.matchAll(/(?:^|\n)\s*(?:import|export)\s+(type\s+)?[^;]*?\sfrom\s+'([^']+)'/g)]
        .filter(([, typeOnly]) => !typeOnly)
        .map(([, , specifier = '']) => specifier),
      ...[...source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map(([, specifier = '']) => specifier),
    ];
    for (const specifier of specifiers.filter((each) => each.startsWith('.'))) {
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      assert.ok(existsSync(target), `${relative(ROOT, file)} imports ${specifier}`);
      pending.push(target);
    }
  }
  return found;
}

describe("the operator's calls (infra/operator-access.ts)", () => {
  const sent = commandsSentFrom(AWS_BACKEND);

  it('name every SDK command the AWS backend and what it builds on can send, and no other', () => {
    assert.ok(sent.has('DescribeStacksCommand') && sent.has('PutCommand'), 'the reading finds the backend and store');
    const listed = Object.keys(CLI_AWS_CALLS).sort();
    const unlisted = [...sent.keys()].filter((command) => !(command in CLI_AWS_CALLS));
    assert.deepEqual(
      unlisted.map((command) => `${command} (${(sent.get(command) ?? []).join(', ')})`),
      [],
      'sent but not in CLI_AWS_CALLS: add each with its IAM actions, or why pipelinectl never sends it',
    );
    assert.deepEqual(listed, [...sent.keys()].sort(), 'CLI_AWS_CALLS lists a command nothing sends');
  });

  it('are all granted by grantOperate, each action on each resource it is sent to', () => {
    const { statementsOf, arns } = withOperators();
    const operator = allowed(statementsOf('operator'));
    const resourceArns: Record<OperatorResource, string[]> = {
      table: [arns.table],
      tableIndex: [arns.index],
      queue: [arns.queue],
      deadLetterQueue: [arns.deadLetterQueue],
      configurationSecrets: [arns.secrets],
      masterKeySecret: [arns.masterKey],
      stack: [arns.stack],
      eksClusters: [EKS_CLUSTER],
      clusterRoles: [CLUSTER_ROLE],
    };
    for (const [command, call] of Object.entries(CLI_AWS_CALLS)) {
      if (!isSent(call)) {
        assert.ok(call.notSent.length > 20, `${command} says why it is not granted`);
        continue;
      }
      for (const action of call.actions) {
        for (const resource of call.on.flatMap((kind) => resourceArns[kind])) {
          assert.ok(operator[action]?.includes(resource), `${command}: ${action} on ${resource}`);
        }
      }
    }
  });
});
