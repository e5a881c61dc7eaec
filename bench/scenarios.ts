// The scenarios of a run, in the order they run: the nominal rows, then the scaling rows.
import { DATASETS, type Dataset } from './datasets.ts';
import type { Options } from './options.ts';
import type { Scenario } from './scenario.ts';
import { catalogScenarios } from './scenarios-catalog.ts';
import { cashFlowFilters, cashFlowScaling, financeScenarios } from './scenarios-finance.ts';
import { menuScaling, menuScenarios } from './scenarios-menu.ts';

export function selectScenarios(options: Options): Scenario[] {
  const nominal = [...catalogScenarios, ...menuScenarios];
  const list = options.quick
    ? [...nominal, ...financeScenarios(DATASETS.cash100k)]
    : [
        ...nominal,
        ...financeScenarios(),
        ...menuScaling,
        ...cashFlowScaling,
        ...(options.all ? cashFlowFilters : []),
      ];
  return options.only ? list.filter((s) => options.only!.test(s.id)) : list;
}

export function datasetsOf(scenarios: Scenario[]): Dataset[] {
  const all = scenarios.flatMap((s) => [s.dataset, ...(s.alsoReads ?? [])]);
  return [...new Map(all.map((d) => [d.name, d])).values()];
}
