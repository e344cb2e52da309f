// Projects. Totals are counters on the project item (kept by every task write), so a read is one
// bounded Query whatever the project's size: the project item plus a preview of its first tasks.
// The whole task list is paged by id (UUIDv7: creation order) through listProjectTasks.
import { now } from '../clock.ts';
import { listOwned, type OwnerPage } from '../db/owner-lists.ts';
import {
  addToCounters,
  deleteItem,
  deleteMany,
  getItem,
  ownedBy,
  putMany,
  putNew,
  queryAfter,
  queryPartition,
} from '../db/store.ts';
import { createOnce, type Identity, ownClaim } from '../idempotency.ts';
import { newIdAt, stableIdAt } from '../ids.ts';
import { projectKeys, TASK_PREFIX } from './keys.ts';
import {
  type CreateProjectInput,
  type ListProjectTasksInput,
  PROJECT_LIMITS,
  type Project,
  type ProjectSummary,
  type ProjectTask,
  type ProjectTaskInput,
  type ProjectTaskPage,
} from './schemas.ts';

const PROJECT_RESOURCE = 'Project';

interface ProjectItem {
  kind: 'project';
  id: string;
  owner: string;
  title: string;
  status: Project['status'];
  mode: Project['mode'];
  description: string | null;
  composer_prompt: string | null;
  bundle_template: string | null;
  task_count: number;
  completed_count: number;
  /** Money is summed in cents: adding float dollars drifts. */
  total_budget_cents: number;
  created_at: string;
  updated_at: string;
}

interface ProjectTaskItem extends ProjectTask {
  kind: 'project_task';
  budget_cents: number;
}

/**
 * Whole cents, half up, of the dollar amount as the client wrote it. JSON.parse hands over a binary
 * float (1.005 is 1.00499999999999989…), so `usd * 100` rounds some half cents down and others up;
 * the float's shortest decimal (`String`) is the literal sent, for any of up to 15 significant
 * digits, and shifting that decimal two places (`1.005e2`) is exact at every half cent.
 */
const toCents = (usd: number) => {
  const [digits, exponent = '0'] = String(usd).split('e');
  return Math.round(Number(`${digits}e${Number(exponent) + 2}`));
};

const toProjectTask = (item: ProjectTaskItem): ProjectTask => ({
  id: item.id,
  project_id: item.project_id,
  title: item.title,
  status: item.status,
  budget_usd: item.budget_cents / 100,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

const toProjectSummary = (item: ProjectItem): ProjectSummary => ({
  id: item.id,
  user_id: item.owner,
  title: item.title,
  status: item.status,
  mode: item.mode,
  created_at: item.created_at,
  updated_at: item.updated_at,
  description: item.description,
  composer_prompt: item.composer_prompt,
  bundle_template: item.bundle_template,
  task_count: item.task_count,
  completed_count: item.completed_count,
  total_budget_usd: item.total_budget_cents / 100,
});

const toProject = (item: ProjectItem, tasks: ProjectTaskItem[]): Project => ({
  ...toProjectSummary(item),
  project_tasks: tasks.map(toProjectTask),
});

const taskItem = (projectId: string, id: string, input: ProjectTaskInput, at: string) => {
  const item: ProjectTaskItem = {
    kind: 'project_task',
    id,
    project_id: projectId,
    title: input.title,
    status: input.status,
    // Kept as the cents it is counted in: a raw 1e-200 could not even be stored.
    budget_usd: toCents(input.budget_usd) / 100,
    budget_cents: toCents(input.budget_usd),
    created_at: at,
    updated_at: at,
  };
  return { ...projectKeys.task(projectId, id), ...item };
};

/** A new project's tasks: the same items every time for the same project and input (ids by
 * position, in order), so a retry completing a create writes the first attempt's, not new ones. */
const taskItems = ({ id: projectId, created_at: at }: Identity, input: CreateProjectInput) =>
  input.tasks.map((task, position) =>
    taskItem(projectId, stableIdAt(new Date(at), `${projectId}/tasks`, position), task, at),
  );

/**
 * POST /projects: the tasks first (staged), the project item last: until it exists the project is
 * not there at all. With an Idempotency-Key, claimed beside the tasks, a retry answers the project the
 * first attempt made (shared/idempotency.ts); the tasks this retry staged are taken back.
 */
export const createProject = (userId: string, input: CreateProjectInput, key?: string): Promise<Project> =>
  createOnce({
    claimAt: ownClaim(userId, 'project', key),
    request: input,
    stage: {
      write: (identity) => putMany(taskItems(identity, input)),
      undo: (identity) => deleteMany(taskItems(identity, input)),
    },
    write: (identity) => writeProject(userId, input, identity),
    // A failed project write may have landed (its answer lost): deleted, then the tasks go, so a
    // failed create leaves nothing (and no project counts tasks it does not have).
    unwrite: ({ id }) => deleteItem(projectKeys.project(id)),
    read: async (id) => {
      const [project, tasks] = await readProject(id);
      return project && toProject(project, tasks);
    },
  });

async function writeProject(userId: string, input: CreateProjectInput, identity: Identity): Promise<Project> {
  const { id, created_at: at } = identity;
  const tasks = taskItems(identity, input);
  const project: ProjectItem = {
    kind: 'project',
    id,
    owner: userId,
    title: input.title,
    status: 'active',
    mode: input.mode,
    description: input.description,
    composer_prompt: input.composer_prompt,
    bundle_template: input.bundle_template,
    task_count: tasks.length,
    completed_count: tasks.filter((task) => task.status === 'completed').length,
    total_budget_cents: tasks.reduce((sum, task) => sum + task.budget_cents, 0),
    created_at: at,
    updated_at: at,
  };
  await putNew({ ...projectKeys.project(id), ...projectKeys.byOwner(userId, id), ...project });
  return toProject(project, tasks.slice(0, PROJECT_LIMITS.tasksShown));
}

/** The caller's projects, newest first, without their task previews. */
export const listProjects = (userId: string, page: OwnerPage): Promise<ProjectSummary[]> =>
  listOwned(
    { partition: projectKeys.ownerPartition(userId), prefix: projectKeys.ownerPrefix },
    page,
    toProjectSummary,
  );

/** One Query of a fixed size (a further page only past 1 MB): the project item (undefined where
 * there is none), then the first `tasksShown` tasks (a preview). */
async function readProject(projectId: string): Promise<[ProjectItem | undefined, ProjectTaskItem[]]> {
  const [first, ...tasks] = await queryPartition<ProjectItem | ProjectTaskItem>(
    projectKeys.partition(projectId),
    { limit: PROJECT_LIMITS.tasksShown + 1 },
  );
  return first?.kind === 'project' ? [first, tasks as ProjectTaskItem[]] : [undefined, []];
}

export async function getProject(userId: string, projectId: string): Promise<Project> {
  const [project, tasks] = await readProject(projectId);
  return toProject(ownedBy(project, userId, PROJECT_RESOURCE), tasks);
}

/** All of a project's tasks, oldest first, one page at a time: the project item (ownership) and one
 * page of `PTASK#` items (one more than asked, to know whether another page follows) in one wave; a
 * page DynamoDB ends early (1 MB) is read on only once the ownership check has passed. */
export async function listProjectTasks(
  userId: string,
  projectId: string,
  page: ListProjectTasksInput,
): Promise<ProjectTaskPage> {
  const checked = getItem<ProjectItem>(projectKeys.project(projectId)).then((project) =>
    ownedBy(project, userId, PROJECT_RESOURCE),
  );
  const [, found] = await Promise.all([
    checked,
    queryAfter<ProjectTaskItem>(projectKeys.partition(projectId), {
      prefix: TASK_PREFIX,
      limit: page.limit,
      after: page.after ? projectKeys.task(projectId, page.after).sk : undefined,
      checked,
    }),
  ]);
  return { tasks: found.items.map(toProjectTask), next_after: found.nextAfter };
}

/** The agents' write path: a task added to an existing project, counters kept in step. */
export async function addProjectTask(projectId: string, input: ProjectTaskInput): Promise<ProjectTask> {
  const project = await getItem<ProjectItem>(projectKeys.project(projectId));
  if (!project) throw new Error(`No project ${projectId}`);
  const at = now();
  const item = taskItem(projectId, newIdAt(at), input, at.toISOString());
  // The task is listed once written: if its counters cannot follow, or its own write fails (which
  // may have landed, its answer lost), it goes again (a retry adds it anew), so no list holds a task
  // the counts leave out. A count that landed with every answer lost is no failure (read back).
  try {
    await putNew(item);
    await countTask(item);
  } catch (error) {
    await deleteItem(projectKeys.task(projectId, item.id)).catch(() => undefined);
    throw error;
  }
  return toProjectTask(item);
}

const countTask = (item: ProjectTaskItem) =>
  addToCounters(
    projectKeys.project(item.project_id),
    {
      task_count: 1,
      completed_count: item.status === 'completed' ? 1 : 0,
      total_budget_cents: item.budget_cents,
    },
    { touched: item.created_at },
  );
