// Synthesizes the stack for the infra tests, without bundling (about 0.4 s a synth instead of about 2 s), in a
// fixed environment so account and region are concrete, with cdk.json's feature flags: the template the tests read
// is the one `cdk synth` writes.
import { readFileSync } from 'node:fs';
import { App, type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { IConstruct } from 'constructs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PipelineController, type PipelineControllerProps } from '../../infra/pipeline-controller.js';
import { PipelineControllerStack, type PipelineControllerStackProps } from '../../infra/stack.js';

export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-1';

/** The context of cdk.json: the recommended feature flags `cdk init` writes. */
export const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }
).context;

/** An app as `cdk synth` makes it, minus the bundling. */
export function testApp(): App {
  return new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
}

export interface Synthesized {
  app: App;
  stack: PipelineControllerStack;
  template: Template;
  /** The logical id of a construct's CloudFormation resource (its default child). */
  logicalId(construct: IConstruct): string;
}

export function synth(props: PipelineControllerStackProps = {}, options: { nag?: boolean } = {}): Synthesized {
  const app = testApp();
  const stack = new PipelineControllerStack(app, 'PipelineControllerStack', {
    env: { account: ACCOUNT, region: REGION },
    ...props,
  });
  if (options.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return {
    app,
    stack,
    template: Template.fromStack(stack),
    logicalId: (construct) => {
      const child = construct.node.defaultChild;
      if (!child) throw new Error(`${construct.node.path} has no default child`);
      return stack.getLogicalId(child as CfnElement);
    },
  };
}

export interface SynthesizedConstruct {
  app: App;
  stack: Stack;
  controller: PipelineController;
  template: Template;
  logicalId(construct: IConstruct): string;
}

/** The construct alone in a plain stack, with props that may need the stack (an imported VPC or topic). */
export function synthConstruct(
  props: (stack: Stack) => PipelineControllerProps,
  options: {
    nag?: boolean;
    /** What the app does with the construct before the synth (grants, alarms of its own). */
    then?: (controller: PipelineController, stack: Stack) => void;
  } = {},
): SynthesizedConstruct {
  const app = testApp();
  const stack = new Stack(app, 'Host', { env: { account: ACCOUNT, region: REGION } });
  const controller = new PipelineController(stack, 'Controller', props(stack));
  options.then?.(controller, stack);
  if (options.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return {
    app,
    stack,
    controller,
    template: Template.fromStack(stack),
    logicalId: (construct) => {
      const child = construct.node.defaultChild;
      if (!child) throw new Error(`${construct.node.path} has no default child`);
      return stack.getLogicalId(child as CfnElement);
    },
  };
}

/** An imported VPC with two private subnets (no lookup, no network). */
export function importedVpc(scope: Stack): ec2.IVpc {
  return ec2.Vpc.fromVpcAttributes(scope, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    availabilityZones: [`${REGION}a`, `${REGION}b`],
    privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
  });
}

/** The resources of one type, by logical id. */
export function resources(template: Template, type: string): Record<string, { Properties: Record<string, unknown> }> {
  return template.findResources(type) as Record<string, { Properties: Record<string, unknown> }>;
}

export interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** The statements of the inline policies attached to a role (by the role's logical id). */
export function statementsOfRole(template: Template, roleLogicalId: string): Statement[] {
  const statements: Statement[] = [];
  for (const policy of Object.values(resources(template, 'AWS::IAM::Policy'))) {
    const roles = policy.Properties.Roles as { Ref?: string }[];
    if (!roles.some((role) => role.Ref === roleLogicalId)) continue;
    statements.push(...(policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  }
  return statements;
}

export const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/**
 * A resource value as text: `{Ref: X}` → `<X>`, `{Fn::GetAtt: [X, Arn]}` → `<X.Arn>`, `Fn::Join` concatenated. The
 * same spelling cdk-nag uses in its finding ids.
 */
export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if (typeof object.Ref === 'string') return `<${object.Ref}>`;
    const getAtt = object['Fn::GetAtt'];
    if (Array.isArray(getAtt)) return `<${getAtt.join('.')}>`;
    const join = object['Fn::Join'];
    if (Array.isArray(join)) {
      const [separator, parts] = join as [string, unknown[]];
      return parts.map(render).join(separator);
    }
  }
  return JSON.stringify(value);
}
