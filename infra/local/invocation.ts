// One local invocation's own state. Lambda runs one invocation per container at a time; the local
// server and the tests run many at once in one process, so what belongs to an invocation (its
// route's grants, its log lines' request id) is kept per invocation here.
import { AsyncLocalStorage } from 'node:async_hooks';
import { keepRequestIdIn } from '../../shared/log.ts';
import type { Route } from '../routes.ts';

interface Invocation {
  route: Route;
  requestId?: string;
}

const invocations = new AsyncLocalStorage<Invocation>();

keepRequestIdIn({
  get: () => invocations.getStore()?.requestId,
  set: (id) => {
    const invocation = invocations.getStore();
    if (invocation) invocation.requestId = id;
  },
});

/** The route whose function is running here, if any (seeding and imports run outside any). */
export const currentRoute = () => invocations.getStore()?.route;

export const runInvocation = <T>(route: Route, invoke: () => Promise<T>): Promise<T> =>
  invocations.run({ route }, invoke);
