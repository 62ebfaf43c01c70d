#!/usr/bin/env node
// pipelinectl: runs the TypeScript CLI through tsx's loader (no build step), on Node 20 and later.
import { register } from 'tsx/esm/api';

// The AWS SDK warns on every run that its 2027 releases will need Node 22; for a CLI that is noise, not news.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv);
