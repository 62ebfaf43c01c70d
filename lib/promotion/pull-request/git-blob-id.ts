// git's id of a file's content, as every Git host reports it: `sha1("blob <length>\0<content>")`. Lets an adapter
// tell whether a branch already holds a change without reading the file back.
import { createHash } from 'node:crypto';

export function gitBlobId(content: string | Buffer): string {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
}
