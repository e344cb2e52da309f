// Spec §"Project" and endpoint 12. Values the spec leaves open are decided here (docs/decisions.md).
import * as v from 'valibot';
import {
  cursorPageQuery,
  list,
  literal,
  model,
  number,
  optionalNullable,
  string,
  uuid,
} from '../http/fields.ts';
import {
  dateTimeOut,
  intOut,
  nullableString,
  nullableUuid,
  uuidOut,
  withDefault,
} from '../http/response-fields.ts';

export const PROJECT_MODES = ['manual', 'composer', 'bundle'] as const;
export const PROJECT_STATUSES = ['active', 'completed', 'archived'] as const;
export const PROJECT_TASK_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;

export const PROJECT_LIMITS = {
  title: { min: 1, max: 200 },
  description: { max: 5000 },
  composerPrompt: { max: 10_000 },
  bundleTemplate: { max: 200 },
  taskTitle: { min: 1, max: 200 },
  /** Initial tasks in one create request (4 parallel batch writes). */
  initialTasks: 100,
  budgetUsd: { ge: 0, le: 1_000_000_000 },
  /** Tasks previewed inline by GET /projects/{id} (the first, in creation order); counts and budget
   * always cover all of them, and GET /projects/{id}/tasks pages through the rest. */
  tasksShown: 20,
  /** GET /projects/{id}/tasks page size. */
  page: { min: 1, max: 100, default: 50 },
} as const;

export const ProjectTaskInput = model({
  title: string(PROJECT_LIMITS.taskTitle),
  status: v.optional(literal(PROJECT_TASK_STATUSES), 'pending'),
  budget_usd: v.optional(
    v.pipe(
      number(PROJECT_LIMITS.budgetUsd),
      v.description(
        'Stored rounded to the cent, half up on the decimal as written (0.005 → 0.01, 1.005 → 1.01, 0.004 → 0), so total_budget_usd is exact to the cent.',
      ),
    ),
    0,
  ),
});

export const CreateProjectBody = model({
  title: string(PROJECT_LIMITS.title),
  description: optionalNullable(string(PROJECT_LIMITS.description)),
  mode: v.optional(literal(PROJECT_MODES), 'manual'),
  composer_prompt: optionalNullable(string(PROJECT_LIMITS.composerPrompt)),
  bundle_template: optionalNullable(string(PROJECT_LIMITS.bundleTemplate)),
  tasks: v.optional(list(ProjectTaskInput, { max: PROJECT_LIMITS.initialTasks }), []),
});
export type CreateProjectInput = v.InferOutput<typeof CreateProjectBody>;
export type ProjectTaskInput = v.InferOutput<typeof ProjectTaskInput>;

export const ProjectPath = model({ project_id: uuid() });

export const ListProjectTasksQuery = cursorPageQuery(PROJECT_LIMITS.page);
export type ListProjectTasksInput = v.InferOutput<typeof ListProjectTasksQuery>;

export const ProjectTask = v.object({
  id: uuidOut,
  project_id: uuidOut,
  title: v.string(),
  status: v.picklist(PROJECT_TASK_STATUSES),
  budget_usd: v.number(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
});
export type ProjectTask = v.InferOutput<typeof ProjectTask>;

export const ProjectTaskPage = v.object({
  /** Oldest first (creation order). */
  tasks: v.array(ProjectTask),
  /** Pass as `after` for the next page; null on the last page. */
  next_after: nullableUuid,
});
export type ProjectTaskPage = v.InferOutput<typeof ProjectTaskPage>;

export const Project = v.object({
  id: uuidOut,
  user_id: v.string(),
  title: v.string(),
  status: v.picklist(PROJECT_STATUSES),
  mode: v.picklist(PROJECT_MODES),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
  description: nullableString,
  composer_prompt: nullableString,
  bundle_template: nullableString,
  project_tasks: withDefault(v.array(ProjectTask), []),
  task_count: withDefault(intOut, 0),
  completed_count: withDefault(intOut, 0),
  total_budget_usd: withDefault(v.number(), 0),
});
export type Project = v.InferOutput<typeof Project>;

/** A project in the caller's list: without the task preview (its counts and budget are there). */
export const ProjectSummary = v.omit(Project, ['project_tasks']);
export type ProjectSummary = v.InferOutput<typeof ProjectSummary>;
export const ProjectList = v.array(ProjectSummary);
