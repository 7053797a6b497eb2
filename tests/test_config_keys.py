"""YAML and JSON snippets placed by their keys (``program.config_keys``): the keys shown down to a change are a
path, and the keys beside them stay."""

from cad_lsp.program.update import merge_update

CONFIG = """spring:
  application:
    name: user-service
  datasource:
    url: jdbc:postgresql://localhost:5432/users
    hikari:
      maximum-pool-size: 10
  jackson:
    serialization:
      write-dates-as-timestamps: false
    deserialization:
      fail-on-unknown-properties: false

server:
  port: 8080
  shutdown: graceful
"""


def test_a_key_shown_under_its_parents_is_added_there_and_their_other_keys_stay():
    update = ("spring:\n  jackson:\n    default-property-inclusion: non_null\n    serialization:\n"
              "      write-dates-as-timestamps: false\n")
    want = CONFIG.replace("  jackson:\n", "  jackson:\n    default-property-inclusion: non_null\n")
    assert merge_update(CONFIG, update, "application.yml").merged == want


def test_a_changed_value_is_rewritten_in_place_and_a_new_block_goes_at_its_parent_s_end():
    update = "spring:\n  datasource:\n    hikari:\n      maximum-pool-size: 20\n      connection-timeout: 5000\n"
    want = CONFIG.replace("maximum-pool-size: 10\n", "maximum-pool-size: 20\n      connection-timeout: 5000\n")
    assert merge_update(CONFIG, update, "application.yaml").merged == want
    update = "server:\n  servlet:\n    context-path: /api\n    session:\n      timeout: 30m\n"
    want = CONFIG + "  servlet:\n    context-path: /api\n    session:\n      timeout: 30m\n"
    assert merge_update(CONFIG, update, "application.yml").merged == want


def test_snippets_with_lists_or_markers_are_placed_as_lines():
    update = "server:\n  port: 9090\n  # ...\n"
    assert merge_update(CONFIG, update, "application.yml").merged == CONFIG.replace("8080", "9090")
    workflow = "jobs:\n  test:\n    steps:\n      - run: make test\n      - run: make lint\n"
    update = "jobs:\n  test:\n    steps:\n      - run: make test\n      - run: make coverage\n      - run: make lint\n"
    assert merge_update(workflow, update, "ci.yml").merged == update


def test_a_json_object_showing_some_of_the_file_s_keys_is_a_part_of_it():
    """Gemini shows ``package.json`` as ``{ "dependencies": {...} }`` with one more dependency: the file's other
    keys stay, and the commas stay right (the fragment's last member has none, the file's has more after it)."""
    document = ('{\n  "name": "mdlinks",\n  "version": "1.3.0",\n  "dependencies": {\n    "chalk": "^4.1.2",\n'
                '    "minimatch": "^9.0.3"\n  },\n  "devDependencies": {\n    "jest": "^29.7.0"\n  }\n}\n')
    update = ('{\n  "dependencies": {\n    "chalk": "^4.1.2",\n    "minimatch": "^9.0.3",\n    "yargs": "^17.7.2"\n'
              '  }\n}\n')
    want = document.replace('"minimatch": "^9.0.3"\n', '"minimatch": "^9.0.3",\n    "yargs": "^17.7.2"\n')
    assert merge_update(document, update, "package.json").merged == want


def test_a_key_added_under_one_document_s_mapping_goes_to_that_document_after_the_keys_shown_beside_it():
    """A Deployment's ``spec:`` shown with its first keys and a new one, in a file whose Service has a ``spec:``
    too: the document whose values the snippet shows, right after the last key shown (it went to the last
    ``spec:`` of the file)."""
    document = ("apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 3\n  revisionHistoryLimit: 5\n"
                "  selector:\n    matchLabels:\n      app: api\n---\napiVersion: v1\nkind: Service\nspec:\n"
                "  ports:\n    - port: 80\n")
    update = "spec:\n  replicas: 3\n  revisionHistoryLimit: 5\n  progressDeadlineSeconds: 300\n"
    want = document.replace("  revisionHistoryLimit: 5\n", "  revisionHistoryLimit: 5\n  progressDeadlineSeconds: 300\n")
    assert merge_update(document, update, "k8s/deployment.yaml").merged == want


def test_a_new_yaml_key_keeps_the_comment_lines_right_above_it():
    document = ("server:\n  port: 8080\n  shutdown: graceful\n\nspring:\n  application:\n    name: weather\n\n"
                "weather:\n  base-url: https://api.example.com\n  timeout: 2s\n\nlogging:\n  level:\n    root: INFO\n")
    update = ("weather:\n  base-url: https://api.example.com\n  timeout: 2s\n"
              "  # How long a forecast is served from memory.\n  # Set to 0 to disable caching.\n  cache-ttl: 10m\n")
    want = document.replace("  timeout: 2s\n", "  timeout: 2s\n  # How long a forecast is served from memory.\n"
                                                "  # Set to 0 to disable caching.\n  cache-ttl: 10m\n")
    assert merge_update(document, update, "application.yml").merged == want
