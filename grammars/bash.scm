; Bash: functions (`name() {...}`, `function name {...}`) and `readonly` constants.
(function_definition name: (word) @name) @definition.function
(program (declaration_command "readonly"
  (variable_assignment name: (variable_name) @name)) @definition.constant)
