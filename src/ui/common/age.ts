/** kubectl's short age format: 42s, 5m, 3h, 2d. */
export function formatAge(creationTimestamp: string | undefined, now: Date): string {
  if (!creationTimestamp) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now.getTime() - new Date(creationTimestamp).getTime()) / 1000));
  if (Number.isNaN(seconds)) return '<invalid>';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}
