// A local HTTP stand-in for the AWS calls the CLI's AWS backend makes beyond DynamoDB and SQS, speaking their wire
// protocols so the real SDK clients can be pointed at it (`endpoint`):
// - Secrets Manager (JSON 1.1, `X-Amz-Target: secretsmanager.<Operation>`): CreateSecret, PutSecretValue,
//   GetSecretValue, DescribeSecret, TagResource, UntagResource;
// - STS (Query protocol, XML answers): GetCallerIdentity;
// - CloudFormation (Query protocol, XML answers): DescribeStacks.
// It keeps secrets in memory and records every call, so tests can check what was called in which order.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredSecret {
  name: string;
  arn: string;
  value: string;
  tags: Map<string, string>;
  versions: number;
  deletedDate?: number;
}

export interface AwsStandIn {
  endpoint: string;
  secrets: Map<string, StoredSecret>;
  /** Every call, as `Service.Operation secretId?`, in order. */
  calls: string[];
  /** The caller GetCallerIdentity answers with. */
  callerArn: string;
  /** Stacks by name: their outputs. */
  stacks: Map<string, Record<string, string>>;
  stop(): Promise<void>;
}

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';

class ServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startAwsStandIn(): Promise<AwsStandIn> {
  const secrets = new Map<string, StoredSecret>();
  const state: AwsStandIn = {
    endpoint: '',
    secrets,
    calls: [],
    callerArn: `arn:aws:iam::${ACCOUNT}:user/alice`,
    stacks: new Map(),
    stop: async () => {
      server.close();
      await once(server, 'close');
    },
  };

  const find = (id: unknown): StoredSecret => {
    const secret = [...secrets.values()].find((s) => s.name === id || s.arn === id);
    if (!secret)
      throw new ServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  };

  const secretsManager = (operation: string, input: Record<string, unknown>): unknown => {
    const id = typeof input.SecretId === 'string' ? input.SecretId : input.Name;
    state.calls.push(`SecretsManager.${operation} ${String(id)}`);
    switch (operation) {
      case 'CreateSecret': {
        const name = String(input.Name);
        if (secrets.has(name)) throw new ServiceError('ResourceExistsException', `the secret ${name} already exists`);
        const tags = new Map<string, string>();
        for (const tag of (input.Tags as { Key: string; Value: string }[] | undefined) ?? [])
          tags.set(tag.Key, tag.Value);
        const arn = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name}-AbCdEf`;
        secrets.set(name, { name, arn, value: String(input.SecretString), tags, versions: 1 });
        return { ARN: arn, Name: name, VersionId: 'v1' };
      }
      case 'PutSecretValue': {
        const secret = find(id);
        if (secret.deletedDate !== undefined) {
          throw new ServiceError('InvalidRequestException', 'the secret is marked for deletion');
        }
        secret.value = String(input.SecretString);
        secret.versions += 1;
        return { ARN: secret.arn, Name: secret.name, VersionId: `v${secret.versions}` };
      }
      case 'GetSecretValue': {
        const secret = find(id);
        return {
          ARN: secret.arn,
          Name: secret.name,
          SecretString: secret.value,
          VersionId: `v${secret.versions}`,
          CreatedDate: 1_700_000_000,
        };
      }
      case 'DescribeSecret': {
        const secret = find(id);
        return {
          ARN: secret.arn,
          Name: secret.name,
          Tags: [...secret.tags].map(([Key, Value]) => ({ Key, Value })),
          ...(secret.deletedDate !== undefined && { DeletedDate: secret.deletedDate }),
        };
      }
      case 'TagResource': {
        const secret = find(id);
        for (const tag of input.Tags as { Key: string; Value: string }[]) secret.tags.set(tag.Key, tag.Value);
        return {};
      }
      case 'UntagResource': {
        const secret = find(id);
        for (const key of input.TagKeys as string[]) secret.tags.delete(key);
        return {};
      }
      default:
        throw new ServiceError('InvalidAction', `operation ${operation} is not in the stand-in`);
    }
  };

  const query = (params: URLSearchParams): string => {
    const action = params.get('Action') ?? '';
    switch (action) {
      case 'GetCallerIdentity':
        state.calls.push('STS.GetCallerIdentity');
        return (
          `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>` +
          `<Arn>${xml(state.callerArn)}</Arn><UserId>AIDAEXAMPLE</UserId><Account>${ACCOUNT}</Account>` +
          `</GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata>` +
          `</GetCallerIdentityResponse>`
        );
      case 'DescribeStacks': {
        const name = params.get('StackName') ?? '';
        state.calls.push(`CloudFormation.DescribeStacks ${name}`);
        const outputs = state.stacks.get(name);
        if (!outputs) throw new ServiceError('ValidationError', `Stack with id ${name} does not exist`);
        const members = Object.entries(outputs)
          .map(
            ([key, value]) =>
              `<member><OutputKey>${xml(key)}</OutputKey><OutputValue>${xml(value)}</OutputValue></member>`,
          )
          .join('');
        return (
          `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult>` +
          `<Stacks><member><StackName>${xml(name)}</StackName>` +
          `<StackId>arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${xml(name)}/1</StackId>` +
          `<CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus>` +
          `<Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult>` +
          `<ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></DescribeStacksResponse>`
        );
      }
      default:
        throw new ServiceError('InvalidAction', `action ${action} is not in the stand-in`);
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const target = request.headers['x-amz-target'];
    if (typeof target === 'string' && target.startsWith('secretsmanager.')) {
      try {
        const output = secretsManager(target.slice('secretsmanager.'.length), JSON.parse(body || '{}') as never);
        send(response, 200, 'application/x-amz-json-1.1', JSON.stringify(output));
      } catch (error) {
        const { code, message } = serviceError(error);
        send(response, 400, 'application/x-amz-json-1.1', JSON.stringify({ __type: code, message }));
      }
      return;
    }
    try {
      send(response, 200, 'text/xml', query(new URLSearchParams(body)));
    } catch (error) {
      const { code, message } = serviceError(error);
      send(
        response,
        400,
        'text/xml',
        `<ErrorResponse><Error><Type>Sender</Type><Code>${xml(code)}</Code><Message>${xml(message)}</Message>` +
          `</Error><RequestId>1</RequestId></ErrorResponse>`,
      );
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => send(response, 500, 'text/plain', String(error)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function serviceError(error: unknown): { code: string; message: string } {
  if (error instanceof ServiceError) return { code: error.code, message: error.message };
  return { code: 'InternalFailure', message: error instanceof Error ? error.message : String(error) };
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'x-amzn-requestid': '1' });
  response.end(body);
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
