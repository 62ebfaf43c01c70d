// Freeze windows (docs/freeze.md): which window holds at an instant and when the freeze ends, in the window's own
// time zone across daylight-saving changes; how window ends are written. Fixed instants only: nothing waits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FREEZE_HORIZON_MS,
  activeFreezeWindow,
  describeWindow,
  holdsForever,
  isTimeZone,
  parseWindowTime,
} from '../../lib/pipeline/freeze-window.js';
import type { FreezeWindow } from '../../lib/pipeline/environment-policies.js';

const window = (from: string, to: string, timeZone: string): FreezeWindow => ({ from, to, timeZone });

const weekendBerlin = window('Fri 16:00', 'Mon 08:00', 'Europe/Berlin');
const weekendNewYork = window('Fri 17:00', 'Mon 09:00', 'America/New_York');
const nightsUtc = window('22:00', '06:00', 'UTC');
const officeKolkata = window('09:00', '17:00', 'Asia/Kolkata');
const midweekKolkata = window('Tue 09:00', 'Thu 17:00', 'Asia/Kolkata');

interface Case {
  name: string;
  windows: FreezeWindow[];
  now: string;
  /** The window reported and when the freeze ends; undefined: nothing holds. */
  expected?: { window: FreezeWindow; endsAt: string };
}

// 2024: Fri 12 Jan and Fri 12 Jul are plain weeks. Berlin springs forward on Sun 31 Mar and falls back on Sun 27 Oct
// (both at 01:00Z); New York springs forward on Sun 10 Mar (07:00Z) and falls back on Sun 3 Nov (06:00Z).
const CASES: Case[] = [
  // A weekly window that wraps over the week's end, in winter (UTC+1) and summer (UTC+2).
  {
    name: 'from is inside: Fri 16:00 CET',
    windows: [weekendBerlin],
    now: '2024-01-12T15:00:00Z',
    expected: { window: weekendBerlin, endsAt: '2024-01-15T07:00:00Z' },
  },
  { name: 'just before from', windows: [weekendBerlin], now: '2024-01-12T14:59:59.999Z' },
  {
    name: 'in the middle: Sunday',
    windows: [weekendBerlin],
    now: '2024-01-14T12:00:00Z',
    expected: { window: weekendBerlin, endsAt: '2024-01-15T07:00:00Z' },
  },
  {
    name: 'just before to',
    windows: [weekendBerlin],
    now: '2024-01-15T06:59:59.999Z',
    expected: { window: weekendBerlin, endsAt: '2024-01-15T07:00:00Z' },
  },
  { name: 'to is outside: Mon 08:00 CET', windows: [weekendBerlin], now: '2024-01-15T07:00:00Z' },
  { name: 'midweek', windows: [weekendBerlin], now: '2024-01-10T12:00:00Z' },
  {
    name: 'summer: Fri 16:00 CEST is 14:00Z',
    windows: [weekendBerlin],
    now: '2024-07-12T14:00:00Z',
    expected: { window: weekendBerlin, endsAt: '2024-07-15T06:00:00Z' },
  },
  { name: 'summer: 15:00 CET would be outside', windows: [weekendBerlin], now: '2024-07-12T13:59:00Z' },

  // Daylight saving changes during a window: it ends at Monday 08:00 local, whatever the offset was at its start.
  {
    name: 'Berlin, spring forward over the weekend: starts at 16:00 CET, ends at 08:00 CEST',
    windows: [weekendBerlin],
    now: '2024-03-29T15:00:00Z',
    expected: { window: weekendBerlin, endsAt: '2024-04-01T06:00:00Z' },
  },
  {
    name: 'Berlin, fall back over the weekend: starts at 16:00 CEST, ends at 08:00 CET',
    windows: [weekendBerlin],
    now: '2024-10-25T14:00:00Z',
    expected: { window: weekendBerlin, endsAt: '2024-10-28T07:00:00Z' },
  },
  { name: 'New York, spring: 16:59 EST is outside', windows: [weekendNewYork], now: '2024-03-08T21:59:00Z' },
  {
    name: 'New York, spring forward over the weekend: 17:00 EST to 09:00 EDT',
    windows: [weekendNewYork],
    now: '2024-03-08T22:00:00Z',
    expected: { window: weekendNewYork, endsAt: '2024-03-11T13:00:00Z' },
  },
  {
    name: 'New York, fall back over the weekend: 17:00 EDT to 09:00 EST',
    windows: [weekendNewYork],
    now: '2024-11-01T21:00:00Z',
    expected: { window: weekendNewYork, endsAt: '2024-11-04T14:00:00Z' },
  },

  // Wall times the change skips resolve to the first instant after the skip; repeated ones to the first occurrence.
  {
    name: 'Berlin, 02:30 is skipped on 31 Mar: the window starts at 03:00 CEST',
    windows: [window('Sun 02:30', 'Sun 05:00', 'Europe/Berlin')],
    now: '2024-03-31T01:00:00Z',
    expected: { window: window('Sun 02:30', 'Sun 05:00', 'Europe/Berlin'), endsAt: '2024-03-31T03:00:00Z' },
  },
  {
    name: 'Berlin, 01:59:59 CET, the last instant before the skip, is outside',
    windows: [window('Sun 02:30', 'Sun 05:00', 'Europe/Berlin')],
    now: '2024-03-31T00:59:59.999Z',
  },
  {
    name: 'Berlin, a window ending at the skipped 02:30 ends at 03:00 CEST',
    windows: [window('01:00', '02:30', 'Europe/Berlin')],
    now: '2024-03-31T00:30:00Z',
    expected: { window: window('01:00', '02:30', 'Europe/Berlin'), endsAt: '2024-03-31T01:00:00Z' },
  },
  {
    name: 'Berlin, 02:30 happens twice on 27 Oct: the window starts at the first (CEST)',
    windows: [window('Sun 02:30', 'Sun 05:00', 'Europe/Berlin')],
    now: '2024-10-27T00:30:00Z',
    expected: { window: window('Sun 02:30', 'Sun 05:00', 'Europe/Berlin'), endsAt: '2024-10-27T04:00:00Z' },
  },
  {
    name: 'Berlin, the repeated hour (02:15 CET) stays inside the window',
    windows: [window('Sun 02:30', 'Sun 05:00', 'Europe/Berlin')],
    now: '2024-10-27T01:15:00Z',
    expected: { window: window('Sun 02:30', 'Sun 05:00', 'Europe/Berlin'), endsAt: '2024-10-27T04:00:00Z' },
  },
  {
    name: 'New York, 02:30 is skipped on 10 Mar: the daily window starts at 03:00 EDT',
    windows: [window('02:30', '04:00', 'America/New_York')],
    now: '2024-03-10T07:00:00Z',
    expected: { window: window('02:30', '04:00', 'America/New_York'), endsAt: '2024-03-10T08:00:00Z' },
  },
  {
    name: 'New York, 01:59:59 EST on 10 Mar is outside',
    windows: [window('02:30', '04:00', 'America/New_York')],
    now: '2024-03-10T06:59:59Z',
  },
  {
    name: 'New York, 01:30 happens twice on 3 Nov: inside from the first (EDT) through the second (EST)',
    windows: [window('01:30', '03:00', 'America/New_York')],
    now: '2024-11-03T06:30:00Z',
    expected: { window: window('01:30', '03:00', 'America/New_York'), endsAt: '2024-11-03T08:00:00Z' },
  },
  {
    name: 'New York, before the first 01:30 on 3 Nov is outside',
    windows: [window('01:30', '03:00', 'America/New_York')],
    now: '2024-11-03T05:29:59Z',
  },

  // Daily windows, one that wraps over midnight.
  {
    name: 'daily, wrapping: 23:00 is inside',
    windows: [nightsUtc],
    now: '2024-01-10T23:00:00Z',
    expected: { window: nightsUtc, endsAt: '2024-01-11T06:00:00Z' },
  },
  {
    name: 'daily, wrapping: from is inside',
    windows: [nightsUtc],
    now: '2024-01-10T22:00:00Z',
    expected: { window: nightsUtc, endsAt: '2024-01-11T06:00:00Z' },
  },
  {
    name: 'daily, wrapping: after midnight is inside',
    windows: [nightsUtc],
    now: '2024-01-11T05:59:59Z',
    expected: { window: nightsUtc, endsAt: '2024-01-11T06:00:00Z' },
  },
  { name: 'daily, wrapping: to is outside', windows: [nightsUtc], now: '2024-01-11T06:00:00Z' },
  { name: 'daily, wrapping: noon is outside', windows: [nightsUtc], now: '2024-01-11T12:00:00Z' },

  // Asia/Kolkata is UTC+05:30, all year.
  {
    name: 'Kolkata 09:00 is 03:30Z',
    windows: [officeKolkata],
    now: '2024-07-10T03:30:00Z',
    expected: { window: officeKolkata, endsAt: '2024-07-10T11:30:00Z' },
  },
  { name: 'Kolkata 08:59 is outside', windows: [officeKolkata], now: '2024-07-10T03:29:00Z' },
  { name: 'Kolkata 17:00 is outside', windows: [officeKolkata], now: '2024-07-10T11:30:00Z' },
  {
    name: 'Kolkata, weekly without wrapping: Wednesday is inside',
    windows: [midweekKolkata],
    now: '2024-07-10T20:00:00Z',
    expected: { window: midweekKolkata, endsAt: '2024-07-11T11:30:00Z' },
  },
  {
    name: 'Kolkata, weekly without wrapping: Monday is outside',
    windows: [midweekKolkata],
    now: '2024-07-08T12:00:00Z',
  },

  // Windows that touch or overlap are one freeze; a gap of a minute is not.
  {
    name: 'touching windows chain: Friday evening to Saturday, Saturday to Monday',
    windows: [window('Fri 16:00', 'Sat 00:00', 'Europe/Berlin'), window('Sat 00:00', 'Mon 08:00', 'Europe/Berlin')],
    now: '2024-01-12T16:00:00Z',
    expected: { window: window('Fri 16:00', 'Sat 00:00', 'Europe/Berlin'), endsAt: '2024-01-15T07:00:00Z' },
  },
  {
    name: 'overlapping windows chain',
    windows: [nightsUtc, window('05:00', '07:00', 'UTC')],
    now: '2024-01-10T23:00:00Z',
    expected: { window: nightsUtc, endsAt: '2024-01-11T07:00:00Z' },
  },
  {
    name: 'a one-minute gap ends the freeze',
    windows: [nightsUtc, window('06:01', '07:00', 'UTC')],
    now: '2024-01-10T23:00:00Z',
    expected: { window: nightsUtc, endsAt: '2024-01-11T06:00:00Z' },
  },
  {
    name: 'several windows hold: the first in list order is reported',
    windows: [window('05:00', '07:00', 'UTC'), nightsUtc],
    now: '2024-01-11T05:30:00Z',
    expected: { window: window('05:00', '07:00', 'UTC'), endsAt: '2024-01-11T07:00:00Z' },
  },
  {
    name: 'the window holding now is reported, not an earlier one in the list',
    windows: [window('05:00', '07:00', 'UTC'), nightsUtc],
    now: '2024-01-10T23:00:00Z',
    expected: { window: nightsUtc, endsAt: '2024-01-11T07:00:00Z' },
  },

  {
    name: "docs/freeze.md's office hours: Friday 18:00 starts a freeze that runs through the nights to Monday 08:00",
    windows: [
      window('18:00', '08:00', 'Europe/Berlin'),
      window('Fri 18:00', 'Mon 08:00', 'Europe/Berlin'),
      window('Tue 14:00', 'Tue 16:30', 'Asia/Kolkata'),
    ],
    now: '2024-01-12T17:00:00Z',
    expected: { window: window('18:00', '08:00', 'Europe/Berlin'), endsAt: '2024-01-15T07:00:00Z' },
  },

  // Several zones in one list: UTC 00:00–06:00, Berlin 07:00–09:00 (06:00Z in winter), Kolkata 13:30–15:00 (08:00Z).
  {
    name: 'several zones, winter: the three windows touch and chain to 09:30Z',
    windows: [
      window('00:00', '06:00', 'UTC'),
      window('07:00', '09:00', 'Europe/Berlin'),
      window('13:30', '15:00', 'Asia/Kolkata'),
    ],
    now: '2024-01-10T01:00:00Z',
    expected: { window: window('00:00', '06:00', 'UTC'), endsAt: '2024-01-10T09:30:00Z' },
  },
  {
    name: 'several zones, summer: Berlin 07:00–09:00 is 05:00–07:00Z, a gap before Kolkata',
    windows: [
      window('00:00', '06:00', 'UTC'),
      window('07:00', '09:00', 'Europe/Berlin'),
      window('13:30', '15:00', 'Asia/Kolkata'),
    ],
    now: '2024-07-10T01:00:00Z',
    expected: { window: window('00:00', '06:00', 'UTC'), endsAt: '2024-07-10T07:00:00Z' },
  },
  {
    name: 'several zones: a later window of the list holds alone',
    windows: [
      window('00:00', '06:00', 'UTC'),
      window('07:00', '09:00', 'Europe/Berlin'),
      window('13:30', '15:00', 'Asia/Kolkata'),
    ],
    now: '2024-07-10T08:15:00Z',
    expected: { window: window('13:30', '15:00', 'Asia/Kolkata'), endsAt: '2024-07-10T09:30:00Z' },
  },

  // What the schema refuses never holds; an empty list never does.
  { name: 'no windows', windows: [], now: '2024-01-13T12:00:00Z' },
  {
    name: 'an unknown time zone never holds',
    windows: [window('00:00', '23:59', 'Mars/Olympus_Mons')],
    now: '2024-01-13T12:00:00Z',
  },
  {
    name: 'a window with one weekday end never holds',
    windows: [window('Fri 16:00', '08:00', 'UTC')],
    now: '2024-01-13T12:00:00Z',
  },
  {
    name: 'a window from a time to itself never holds',
    windows: [window('12:00', '12:00', 'UTC')],
    now: '2024-01-13T12:00:00Z',
  },
];

describe('activeFreezeWindow', () => {
  for (const { name, windows, now, expected } of CASES) {
    it(name, () => {
      const active = activeFreezeWindow(windows, new Date(now));
      assert.deepEqual(
        active && { window: active.window, endsAt: active.endsAt.toISOString() },
        expected && { window: expected.window, endsAt: new Date(expected.endsAt).toISOString() },
      );
    });
  }

  it('windows that leave no gap end FREEZE_HORIZON_MS after now, and holdsForever says so', () => {
    const always = [window('00:00', '12:00', 'UTC'), window('12:00', '00:00', 'UTC')];
    const now = new Date('2024-05-01T09:00:00Z');
    assert.equal(activeFreezeWindow(always, now)?.endsAt.getTime(), now.getTime() + FREEZE_HORIZON_MS);
    assert.equal(holdsForever(always), true);
    assert.equal(holdsForever([weekendBerlin, nightsUtc]), false);
    assert.equal(holdsForever([]), false);
  });

  it("a week of windows in two zones chains to their one gap, which moves with Berlin's offset", () => {
    // Berlin holds from Mon 00:00 to Sun 23:00 local; UTC from Sun 22:00 to Sun 22:30. In winter Berlin's week ends at
    // Sun 22:00Z, so the two touch and the gap is 22:30Z–23:00Z; in summer it ends at 21:00Z, before UTC's window.
    const windows = [window('Mon 00:00', 'Sun 23:00', 'Europe/Berlin'), window('Sun 22:00', 'Sun 22:30', 'UTC')];
    assert.equal(
      activeFreezeWindow(windows, new Date('2024-01-10T12:00:00Z'))?.endsAt.toISOString(),
      '2024-01-14T22:30:00.000Z',
    );
    assert.equal(
      activeFreezeWindow(windows, new Date('2024-07-10T12:00:00Z'))?.endsAt.toISOString(),
      '2024-07-14T21:00:00.000Z',
    );
  });
});

describe('parseWindowTime', () => {
  const accepted: [string, ReturnType<typeof parseWindowTime>][] = [
    ['Fri 16:00', { weekday: 5, minutes: 960 }],
    ['fri 16:00', { weekday: 5, minutes: 960 }],
    ['FRI 16:00', { weekday: 5, minutes: 960 }],
    ['Sun 00:00', { weekday: 0, minutes: 0 }],
    ['Sat 23:59', { weekday: 6, minutes: 1439 }],
    ['Mon 8:00', { weekday: 1, minutes: 480 }],
    ['16:00', { minutes: 960 }],
    ['00:00', { minutes: 0 }],
    ['23:59', { minutes: 1439 }],
    ['8:05', { minutes: 485 }],
  ];
  for (const [text, expected] of accepted) {
    it(`reads ${JSON.stringify(text)}`, () => assert.deepEqual(parseWindowTime(text), expected));
  }
  const refused = ['24:00', 'Fri 24:00', '16:60', 'Friday 16:00', 'Fr 16:00', 'Fri16:00', 'Fri', '16', '1600', '16:0'];
  for (const text of [...refused, '', '016:00', '-1:00', '16:00:00']) {
    it(`refuses ${JSON.stringify(text)}`, () => assert.equal(parseWindowTime(text), undefined));
  }
});

describe('isTimeZone', () => {
  for (const name of ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'UTC', 'America/Argentina/Buenos_Aires']) {
    it(`takes ${name}`, () => assert.equal(isTimeZone(name), true));
  }
  for (const name of ['europe/berlin', 'utc', '+05:30', 'UTC+1', 'Mars/Olympus_Mons', 'Europe/Berlin ', '']) {
    it(`refuses ${JSON.stringify(name)}`, () => assert.equal(isTimeZone(name), false));
  }
});

describe('describeWindow', () => {
  it('writes a weekly window with its zone, the ends normalised', () => {
    assert.equal(describeWindow(window('fri 16:00', 'MON 8:00', 'Europe/Berlin')), 'Fri 16:00–Mon 08:00 Europe/Berlin');
  });
  it('writes a daily window', () => {
    assert.equal(describeWindow(nightsUtc), '22:00–06:00 UTC');
  });
});
