// Where a value sits in a nested document while it is walked without recursion: its key and its parent's place, so
// that a path is only built for the few values a message names.

export interface Place {
  key: PropertyKey;
  parent: Place | undefined;
}

/** The keys from the root down to `place`. */
export function pathOf(place: Place | undefined): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at = place; at; at = at.parent) path.push(at.key);
  return path.reverse();
}
