// What the level board (level-board.mjs) prints for board row i at axis-0 level L, so tests can
// check every number a capture kept. Axis 0 alternates sign around the level (mean |x| = L, what
// the test models classify on); axis 1 names the row (100 + i/100, two decimals, so a row found
// anywhere says which board row it is); further axes are constant (9.81).
export const levelRow = (i, level, axes) =>
  Array.from({ length: axes }, (_, a) => (a === 0 ? (i % 2 ? -level : level) : a === 1 ? Number((100 + i / 100).toFixed(2)) : 9.81));

/** The board row a printed axis-1 value names. */
export const rowOf = (axis1) => Math.round((axis1 - 100) * 100);

/** Level of board row i from the board's timeline ([[first row, level], …], rows ascending). */
export function levelOfRow(changes, i) {
  let level = changes[0][1];
  for (const [row, l] of changes) if (row <= i) level = l;
  return level;
}
