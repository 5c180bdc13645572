const maxDefaultTitleLength = 60;

/** A title from the first line of the instruction, for sessions started without one. */
export function defaultTitle(instruction: string | undefined): string {
  const firstLine = instruction?.trim().split('\n')[0]?.trim() ?? '';
  if (!firstLine) return 'Untitled session';
  return firstLine.length <= maxDefaultTitleLength ? firstLine : `${firstLine.slice(0, maxDefaultTitleLength - 1)}…`;
}
