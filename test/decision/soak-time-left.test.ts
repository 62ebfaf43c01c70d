// The time left of a soak as `status`, `explain` and the dashboard show it next to `soakEndsAt` (lib/decision/soak.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timeLeftUntil } from '../../lib/decision/index.js';

const NOW = new Date('2026-11-24T10:30:00.000Z');

describe('timeLeftUntil', () => {
  const rows: { name: string; soakEndsAt: string; shown: string | undefined }[] = [
    { name: 'minutes, rounded up', soakEndsAt: '2026-11-24T10:42:00Z', shown: '12m left (until 10:42 UTC)' },
    {
      name: 'a part of a minute counts whole',
      soakEndsAt: '2026-11-24T10:41:01Z',
      shown: '12m left (until 10:41 UTC)',
    },
    { name: 'hours and minutes', soakEndsAt: '2026-11-24T12:00:00Z', shown: '1h30m left (until 12:00 UTC)' },
    { name: 'seconds in the last minute', soakEndsAt: '2026-11-24T10:30:40Z', shown: '40s left (until 10:30 UTC)' },
    { name: 'over', soakEndsAt: '2026-11-24T10:29:00Z', shown: '0s left (until 10:29 UTC)' },
    {
      name: 'another day: with the date',
      soakEndsAt: '2026-11-26T08:00:00Z',
      shown: '45h30m left (until 2026-11-26 08:00 UTC)',
    },
    { name: 'a time that cannot be read', soakEndsAt: 'soon', shown: undefined },
  ];
  for (const { name, soakEndsAt, shown } of rows) {
    it(name, () => assert.equal(timeLeftUntil(soakEndsAt, NOW), shown));
  }
});
