// The cdk-nag (AwsSolutions) findings the construct accepts, each acknowledged on the construct that raises it, by
// its exact id (cdk-nag 3 has no prefix matching), with the reason. Anything else still fails the synth. Ids carry
// the plugin's namespace as the synth prints it ("Acknowledge with 'AwsSolutions::…'"); without it CDK files them
// as annotation acknowledgements (which cdk-nag also honours, but the audit trail would name the wrong source).
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export interface NagScopes {
  masterKeySecret: IConstruct;
  functions: readonly IConstruct[];
  receiverRole: IConstruct;
  verifierRole: IConstruct;
  /** Every function's role (the receiver's and the verifier's among them). */
  roles: readonly IConstruct[];
  secretsPrefix: string;
  vpc: boolean;
  /** X-Ray active tracing: Lambda adds `xray:PutTraceSegments`/`PutTelemetryRecords` on `*` to each role. */
  tracing: boolean;
}

const PLUGIN = 'AwsSolutions::';
/** How cdk-nag names an IAM5 finding for a resource; the ARNs here are built from the AWS pseudo parameters. */
export const iam5ResourceId = (resource: string): string => `${PLUGIN}AwsSolutions-IAM5[Resource::${resource}]`;
export const secretsPatternFindingResource = (prefix: string): string =>
  `arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${prefix}*`;
export const ENI_FINDING_RESOURCE = 'arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:*/*';

export function acknowledgeFindings(scopes: NagScopes): void {
  Validations.of(scopes.masterKeySecret).acknowledge({
    id: `${PLUGIN}AwsSolutions-SMG4`,
    reason:
      'The master HMAC key cannot rotate on a schedule: every leaf cluster holds a key derived from it in its Flux ' +
      'Provider Secret, so a new key must reach the clusters first. It rotates by hand with its two fields: the old ' +
      'value moves to "previous" (still accepted), a new "current" is set, the clusters get new keys ' +
      '(pipelinectl flux-config), then "previous" is removed.',
  });
  for (const fn of scopes.functions) {
    Validations.of(fn).acknowledge({
      id: `${PLUGIN}AwsSolutions-L1`,
      reason:
        'The construct pins the Lambda runtime to nodejs22.x: the bundles target node22 and the ' +
        'code is tested for it. Moving to nodejs24.x is a deliberate upgrade, not one a CDK bump should make.',
    });
  }
  const secrets = iam5ResourceId(secretsPatternFindingResource(scopes.secretsPrefix));
  Validations.of(scopes.receiverRole).acknowledge({
    id: secrets,
    reason:
      "A Pipeline names its webhook HMAC Secret, and a ConfigSource the Secret holding its push webhooks' secret, at " +
      'apply time (<prefix><ns>/<name>), so no list of secrets exists at deploy time. The statement carries a ' +
      'condition on the tag pipeline-controller:purpose, webhook-hmac or config-source: the receiver can read only ' +
      "those Secrets (a ConfigSource's holds its read token too, and apply gives it no other use), never kubeconfigs " +
      'or pull-request Git tokens under the same prefix.',
  });
  Validations.of(scopes.verifierRole).acknowledge({
    id: secrets,
    reason:
      'The verifier reads the kubeconfig, Git token and HMAC Secrets the applied configuration names, stored as ' +
      '<prefix><ns>/<name>; the names are chosen at apply time, so the project prefix is the narrowest scope known ' +
      'at deploy time.',
  });
  // One finding per role for every statement on `*`, so the reasons of the verifier's two such statements are one.
  const wildcardReasons = new Map<IConstruct, string[]>();
  const wildcard = (role: IConstruct, reason: string) =>
    wildcardReasons.set(role, [...(wildcardReasons.get(role) ?? []), reason]);
  if (scopes.tracing) {
    for (const role of scopes.roles) {
      wildcard(
        role,
        'xray:PutTraceSegments and xray:PutTelemetryRecords have no resource-level permissions; Lambda adds them ' +
          'for active tracing (the tracing prop), in a statement with only those two actions.',
      );
    }
  }
  if (scopes.vpc) {
    wildcard(
      scopes.verifierRole,
      'ec2:DescribeNetworkInterfaces and ec2:DescribeSubnets have no resource-level permissions; Lambda needs ' +
        'them to attach the verifier to the VPC (the statement holds only those two actions).',
    );
    Validations.of(scopes.verifierRole).acknowledge({
      id: iam5ResourceId(ENI_FINDING_RESOURCE),
      reason:
        'Lambda creates, deletes and addresses the network interfaces of the verifier with its execution role; ' +
        'their ids do not exist at deploy time, and AWS documents this account- and region-wide scope for them.',
    });
  }
  for (const [role, reasons] of wildcardReasons) {
    Validations.of(role).acknowledge({ id: iam5ResourceId('*'), reason: reasons.join(' ') });
  }
}
