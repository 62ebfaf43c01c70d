// dynalite ships no TypeScript types; this is the part of its API the project uses.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  export interface DynaliteOptions {
    /** Directory for an on-disk LevelDB store; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}
