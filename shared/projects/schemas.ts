// Spec §"Project" and endpoint 12. Values the spec leaves open are decided here (docs/decisions.md).
import * as v from 'valibot';
import { list, literal, model, number, optionalNullable, string, uuid } from '../http/fields.ts';

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
  /** Tasks returned inline by GET; counts and budget always cover all of them. */
  tasksShown: 200,
} as const;

export const ProjectTaskInput = model({
  title: string(PROJECT_LIMITS.taskTitle),
  status: v.optional(literal(PROJECT_TASK_STATUSES), 'pending'),
  budget_usd: v.optional(number(PROJECT_LIMITS.budgetUsd), 0),
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

export const ProjectTask = v.object({
  id: v.string(),
  project_id: v.string(),
  title: v.string(),
  status: v.string(),
  budget_usd: v.number(),
  created_at: v.string(),
  updated_at: v.string(),
});
export type ProjectTask = v.InferOutput<typeof ProjectTask>;

export const Project = v.object({
  id: v.string(),
  user_id: v.string(),
  title: v.string(),
  status: v.string(),
  mode: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
  description: v.nullable(v.string()),
  composer_prompt: v.nullable(v.string()),
  bundle_template: v.nullable(v.string()),
  project_tasks: v.array(ProjectTask),
  task_count: v.number(),
  completed_count: v.number(),
  total_budget_usd: v.number(),
});
export type Project = v.InferOutput<typeof Project>;
