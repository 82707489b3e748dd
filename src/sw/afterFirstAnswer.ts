/**
 * Work the worker holds back until its first API answer is out: the core's
 * kube-controller-manager controllers (ApiServerOptions.scheduleControllers).
 * Their code is a part of the worker's script (scripts/vite/serviceWorkerBuild.ts),
 * so each start of the worker answers its first request from the core chunks
 * alone and runs the controllers just after, in a task of their own.
 */

export interface AfterFirstAnswer {
  /** Runs `work` after the first answer of this start of the worker (at once, in a task, when it is already out). */
  schedule(work: () => void): void;
  /** Called by the fetch listener with each answer of the core. */
  answered(): void;
}

export function afterFirstAnswer(onError: (error: unknown) => void, later: (task: () => void) => void = (task) => void setTimeout(task, 0)): AfterFirstAnswer {
  let answered = false;
  const waiting: (() => void)[] = [];
  const run = (work: () => void) =>
    later(() => {
      try {
        work();
      } catch (error) {
        // A part that cannot load (src/sw/chunkLoader.ts): requests keep being answered; the next start tries again.
        onError(error);
      }
    });
  return {
    schedule(work) {
      if (answered) run(work);
      else waiting.push(work);
    },
    answered() {
      if (answered) return;
      answered = true;
      // On the worker's timeline beside the chunks' runs (chunkLoader.ts), so a reader sees what ran before the first answer.
      performance.mark('kubesim:first-answer');
      for (const work of waiting.splice(0)) run(work);
    },
  };
}
