// The checkout's root, with a trailing slash: where the tests find the sources, docs and examples they read, and where
// they run pipelinectl (test/support/pipelinectl.ts). A module of its own, so that a test reading the sources does not
// import what starts processes (`npm run test:quick` leaves those files out).
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
