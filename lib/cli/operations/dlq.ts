// What `pipelinectl dlq list` prints: the dead letters without their bodies.
import type { DeadLetterView } from '../backend.js';
import { formatTable } from '../output.js';

/** The dead letters as a table: id, receive count, what the message is, why it was dead-lettered. */
export function deadLettersTable(letters: readonly DeadLetterView[]): string[] {
  return formatTable(
    [{ header: 'MESSAGE ID' }, { header: 'RECEIVES' }, { header: 'MESSAGE', max: 60 }, { header: 'REASON' }],
    letters.map((letter) => [
      letter.messageId,
      letter.receiveCount === undefined ? '-' : String(letter.receiveCount),
      letter.summary,
      letter.reason ?? '(moved by SQS after too many receives)',
    ]),
  );
}
