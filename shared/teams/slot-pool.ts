// One slot of a kind per instant (docs/teams.md "Content cadence"): the lines of one platform and task
// type share the kind's instants, each line wanting some of its own preferred ones. The calendar plans
// a week's instants with it, and the cadence's 422 check asks it whether a cadence can ever be planned
// whole, so the two agree on what fits.

/**
 * The options (instants, or day-and-time pairs) that lines take in cadence order, no option held by
 * two lines.
 * A line takes its free options first, in its order of preference; where none is left, the lines
 * before it move to other options of theirs to make room (an augmenting path, as in bipartite
 * matching). So every line gets all it asks for whenever some sharing of the options gives every line
 * so far all of theirs, and a plan that fits without moving anything is the greedy one.
 */
export function slotPool<T>() {
  const holder = new Map<T, number>();
  const lines: T[][] = [];

  /** Gives line `i` one more option, moving the lines along a chain of taken options where none is free. */
  const grow = (i: number, seen: Set<T>): boolean => {
    const options = lines[i]!;
    const free = options.find((option) => !holder.has(option));
    if (free !== undefined) {
      holder.set(free, i);
      return true;
    }
    for (const option of options) {
      const other = holder.get(option)!;
      if (other === i || seen.has(option)) continue;
      seen.add(option);
      if (grow(other, seen)) {
        holder.set(option, i);
        return true;
      }
    }
    return false;
  };

  /** Adds a line wanting `count` of `options` (distinct, most preferred first): how many it got, and
   * which it holds (in its order of preference), which later lines may still change. */
  return function add(options: T[], count: number) {
    const line = lines.push(options) - 1;
    let got = 0;
    while (got < count && grow(line, new Set())) got++;
    return { got, held: () => options.filter((option) => holder.get(option) === line) };
  };
}
