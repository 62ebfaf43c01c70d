// The promotion decision's public API: the pure `decide` function and its input and output types.
export { decide } from './decide.js';
export type * from './types.js';
