/** The Events of one object, watched live by its uid, in kubectl describe's order and columns; `<none>` when there are none. */
import { useMemo } from 'react';
import { useWatchedList } from '../../../api';
import { StatusError } from '../../../common';
import { EVENTS_KIND, eventRow, involvedObjectSelector, sortEvents } from './events';

interface EventsTableProps {
  uid: string;
  /** The object's namespace; undefined for a cluster-scoped object, whose events may be in any namespace. */
  namespace: string | undefined;
  now: Date;
}

export function EventsTable({ uid, namespace, now }: EventsTableProps) {
  const events = useWatchedList(EVENTS_KIND, namespace, '', involvedObjectSelector(uid));
  const sorted = useMemo(() => sortEvents(events.data?.items ?? []), [events.data]);

  return (
    <section className="describe-events" aria-labelledby={`events-${uid}`} data-testid="describe-events">
      <h3 id={`events-${uid}`}>Events</h3>
      {events.error && <StatusError error={events.error} testId="events-error" />}
      {events.data && sorted.length === 0 && (
        <p className="muted" data-testid="events-none">
          &lt;none&gt;
        </p>
      )}
      {sorted.length > 0 && (
        <table className="describe-table" data-testid="events-table">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Reason</th>
              <th scope="col">Age</th>
              <th scope="col">From</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((event) => {
              const row = eventRow(event, now);
              return (
                <tr key={row.key} className={row.type === 'Warning' ? 'warning-event' : undefined} data-testid="event-row" data-type={row.type} data-reason={row.reason}>
                  <td>{row.type}</td>
                  <td>{row.reason}</td>
                  <td className="nowrap">{row.age}</td>
                  <td>{row.from}</td>
                  <td className="event-message">{row.message}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
