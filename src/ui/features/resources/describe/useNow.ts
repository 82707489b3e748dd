/** The current time, renewed every second, so ages (`5s`, `2m`) keep counting as kubectl's would on a rerun. */
import { useEffect, useState } from 'react';

export function useNow(intervalMs = 1_000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
