"""YAML, JSON and TOML snippets placed by their keys (``program.config_keys``): the keys shown down to a change are a
path, and the keys beside them stay."""

import json

import pytest

from cad_lsp.program.update import UpdateError, merge_update
from cad_lsp.program.config_keys import merge_table_keys, merge_yaml_keys

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


CARGO_TOML = """[package]
name = "stock-sync"
version = "0.3.1"

[dependencies]
anyhow = "1"
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
tracing = "0.1"

[dev-dependencies]
tokio = { version = "1", features = ["macros", "rt-multi-thread", "test-util"] }

[lints.rust]
unsafe_code = "forbid"
"""


def test_a_toml_key_shown_under_its_table_rewrites_that_table_s_key():
    """``[dependencies]``, a marker, ``tokio = {...}`` with a new feature, a marker: the ``tokio`` of
    ``[dependencies]`` is rewritten, not ``[dev-dependencies]``'s, and nothing is appended at the file's end."""
    update = ("[dependencies]\n# ... existing code ...\n"
              "tokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\", \"time\"] }\n# ... existing code ...\n")
    merged = merge_update(CARGO_TOML, update, "Cargo.toml").merged
    assert merged == CARGO_TOML.replace('"rt-multi-thread"] }\ntracing', '"rt-multi-thread", "time"] }\ntracing')


def test_new_toml_keys_go_at_their_table_s_end_and_a_new_table_at_the_file_s_end():
    """Keys the snippet does not show stay (placed as lines, those between two shown keys were removed); a new
    key goes after the shown one, or at the end of its table's keys; a new table at the file's end."""
    update = ("[dependencies]\nanyhow = \"1\"\n# Retries with backoff\nbackoff = \"0.4\"\n\n[dev-dependencies]\n"
              "wiremock = \"0.6\"\n\n[features]\nfake = []\n")
    merged = merge_update(CARGO_TOML, update, "Cargo.toml").merged
    assert merged == CARGO_TOML.replace('anyhow = "1"\n', 'anyhow = "1"\n# Retries with backoff\nbackoff = "0.4"\n').replace(
        '"test-util"] }\n', '"test-util"] }\nwiremock = "0.6"\n') + "\n[features]\nfake = []\n"


def test_a_toml_snippet_for_a_table_the_file_has_twice_is_left_to_the_other_readings():
    from cad_lsp.program.config_keys import merge_table_keys

    document = "[[bin]]\nname = \"a\"\n\n[[bin]]\nname = \"b\"\n"
    assert merge_table_keys(document.splitlines(True), ["[[bin]]\n", "path = \"src/a.rs\"\n"]) is None


def test_a_toml_key_between_two_shown_ones_is_replaced_and_a_new_table_goes_before_the_next_shown_one():
    """``name``, ``dynamic = ["version"]``, ``description``: the file's ``version`` between the two shown keys
    goes (as lines between two shown lines do); ``[project.scripts]`` shown before ``[lints.rust]`` goes right
    above it, not at the file's end."""
    document = ("[project]\nname = \"slugkit\"\nversion = \"0.4.1\"\ndescription = \"Slugs.\"\nreadme = \"README.md\"\n\n"
                "[lints.rust]\nunsafe_code = \"forbid\"\n\n[tool.mypy]\nstrict = true\n")
    update = ("[project]\nname = \"slugkit\"\ndynamic = [\"version\"]\ndescription = \"Slugs.\"\n# ... the rest unchanged ...\n\n"
              "[project.scripts]\nslugkit = \"slugkit.cli:main\"\n\n[lints.rust]\n# ... unchanged ...\n")
    assert merge_update(document, update, "pyproject.toml").merged == document.replace(
        "version = \"0.4.1\"\n", "dynamic = [\"version\"]\n").replace(
        "[lints.rust]", "[project.scripts]\nslugkit = \"slugkit.cli:main\"\n\n[lints.rust]")


def test_a_new_top_level_yaml_key_before_a_shown_one_is_set_off_as_the_file_sets_off_its_keys():
    """``permissions``, a new ``concurrency`` block, a blank line, then ``jobs:``: the new block goes before
    ``jobs:`` with the blank line after it, as the snippet and the file set their top-level keys off."""
    document = ("name: Deploy\n\non:\n  push:\n    branches: [main]\n  workflow_dispatch:\n    inputs:\n"
                "      environment:\n        description: Target\n        default: staging\n\npermissions:\n"
                "  contents: read\n  id-token: write\n\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n"
                "    environment: staging\n    steps:\n      - uses: actions/checkout@v4\n")
    update = ("permissions:\n  contents: read\n  id-token: write\n\nconcurrency:\n  group: deploy\n"
              "  cancel-in-progress: false\n\njobs:\n")
    assert merge_update(document, update, "deploy.yml").merged == document.replace(
        "\njobs:", "\nconcurrency:\n  group: deploy\n  cancel-in-progress: false\n\njobs:")


def test_new_list_items_below_a_key_and_a_marker_go_after_the_list_s_last_item():
    """``repos:``, ``# ... existing repos ...``, a new ``- repo: local`` (a pre-commit config): after the last repo,
    set off by a blank line as the snippet shows it (refused before: its ``hooks:`` fit three places)."""
    document = ("repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.4.4\n    hooks:\n"
                "      - id: ruff\n\n  - repo: https://github.com/pre-commit/mirrors-mypy\n    rev: v1.10.0\n"
                "    hooks:\n      - id: mypy\n")
    new = "  - repo: local\n    hooks:\n      - id: license-headers\n        entry: python scripts/headers.py\n"
    update = "repos:\n  # ... existing repos ...\n\n" + new
    assert merge_update(document, update, ".pre-commit-config.yaml").merged == document + "\n" + new


def test_one_member_of_a_json_object_shown_without_its_braces_rewrites_that_member():
    """``"scripts": { ... }`` at the left edge, for a ``package.json`` whose members are indented: that member
    rewritten, the others kept (it was refused: no line matched at its indentation)."""
    document = ('{\n  "name": "lib",\n  "scripts": {\n    "build": "node build.mjs",\n    "test": "vitest run"\n  },\n'
                '  "devDependencies": {\n    "esbuild": "^0.21.0"\n  }\n}\n')
    update = ('"scripts": {\n  "build": "node build.mjs",\n  "dev": "node build.mjs --watch",\n  "test": "vitest run"\n'
              '}\n')
    assert merge_update(document, update, "package.json").merged == document.replace(
        '    "build": "node build.mjs",\n', '    "build": "node build.mjs",\n    "dev": "node build.mjs --watch",\n')


def test_new_yaml_keys_below_a_marker_for_the_existing_ones_go_at_the_end_of_their_mapping():
    """``data:``, ``# ...existing keys...``, two new keys: after the mapping's last key.  Lines placed them on
    ``HTTP_PORT``, which they replaced (a key lost unseen); a marker below them, or above keys the file has,
    still leaves the placing to lines."""
    document = ("kind: ConfigMap\ndata:\n  APP_ENV: production\n  HTTP_PORT: \"8080\"\n  METRICS_PORT: \"9090\"\n"
                "  OTEL_SAMPLER: always_on\n")
    update = "data:\n  # ...existing keys...\n  HEALTH_PORT: \"8081\"\n  SHUTDOWN_DELAY_SECONDS: \"10\"\n"
    assert merge_update(document, update, "configmap.yaml").merged == \
        document + "  HEALTH_PORT: \"8081\"\n  SHUTDOWN_DELAY_SECONDS: \"10\"\n"
    assert merge_yaml_keys(document.splitlines(True), "data:\n  HEALTH_PORT: 1\n  # ...\n".splitlines(True)) is None


def test_a_new_yaml_block_keeps_the_comments_between_its_keys():
    """A new ``cleanup:`` block after a shown key, a comment between two of its keys: the comment stays."""
    document = ("server:\n  port: 8080\n  shutdown: graceful\nspring:\n  jpa:\n    open-in-view: false\napp:\n  sessions:\n"
                "    ttl: 14d\n    cookie-name: SID\n  reports:\n    signups-cron: \"0 0 6 * * *\"\n")
    update = ("app:\n  sessions:\n    ttl: 14d\n    cleanup:\n      enabled: true\n      # every 15 minutes\n"
              "      cron: \"0 */15 * * * *\"\n")
    assert merge_update(document, update, "application.yml").merged == document.replace("14d\n", "14d\n" + (
        "    cleanup:\n      enabled: true\n      # every 15 minutes\n      cron: \"0 */15 * * * *\"\n"))


def test_a_jsonc_member_shown_with_markers_and_new_keys_after_its_last_one_keeps_the_file_s_other_members():
    """tsconfig.json (comments: not JSON) shown as ``{ "compilerOptions": { // ... existing options ...``, its last
    option now with a comma, then new keys, then ``}`` ``}``: the options grow, "include" stays, and no brace or
    option is written twice (the closing lines and the comma-less option placed nothing)."""
    document = ('{\n  "compilerOptions": {\n    "target": "ES2020",\n    /* Linting */\n    "strict": true,\n'
                '    "forceConsistentCasingInFileNames": true\n  },\n  "include": ["src"]\n}\n')
    update = ('{\n  "compilerOptions": {\n    // ... existing options ...\n    "forceConsistentCasingInFileNames": true,\n\n'
              '    /* Path aliases */\n    "baseUrl": ".",\n    "paths": {\n      "@/*": ["src/*"]\n    }\n  }\n}\n')
    assert merge_update(document, update, "tsconfig.json").merged == document.replace(
        "FileNames\": true\n", "FileNames\": true,\n\n    /* Path aliases */\n    \"baseUrl\": \".\",\n"
        "    \"paths\": {\n      \"@/*\": [\"src/*\"]\n    }\n")


def test_new_top_level_yaml_keys_said_to_go_after_one_go_after_its_block():
    """"right after `resources` is a good spot" and a new ``autoscaling:`` block: after ``resources``' block,
    set apart as the file's keys are (it went to the file's end)."""
    document = ("image:\n  tag: \"\"\n\nresources:\n  limits:\n    memory: 256Mi\n\n# Extra environment\nenv:\n"
                "  LOG_LEVEL: info\n\naffinity: {}\n")
    update = "autoscaling:\n  enabled: false\n  maxReplicas: 10\n"
    assert merge_update(document, update, "values.yaml", after="resources").merged == document.replace(
        "256Mi\n", "256Mi\n\n" + update)


def test_new_toml_keys_under_markers_go_at_the_end_of_their_tables():
    """A version catalog snippet, ``[versions]``, ``# ...``, a new version, ``[libraries]``, ``# ...``, a new
    library: each at the end of its table (no key of the file shown, it was read line by line and the library
    went into ``[plugins]``)."""
    catalog = ("[versions]\nkotlin = \"2.0.0\"\njunit = \"4.13.2\"\n\n[libraries]\n"
               "junit = { group = \"junit\", name = \"junit\", version.ref = \"junit\" }\n\n[plugins]\n"
               "ksp = { id = \"com.google.devtools.ksp\", version.ref = \"ksp\" }\n")
    work = "androidx-work-runtime-ktx = { group = \"androidx.work\", name = \"work-runtime-ktx\", version.ref = \"work\" }\n"
    snippet = "[versions]\n# ...\nwork = \"2.9.1\"\n\n[libraries]\n# ...\n" + work
    assert "".join(merge_table_keys(catalog.splitlines(True), snippet.splitlines(True))) == catalog.replace(
        "junit = \"4.13.2\"\n", "junit = \"4.13.2\"\nwork = \"2.9.1\"\n").replace(
        "version.ref = \"junit\" }\n", "version.ref = \"junit\" }\n" + work)


def test_a_json_object_showing_one_of_the_file_s_keys_and_a_new_one_is_a_part_of_the_file():
    """``{ "ConnectionStrings": {...}, "Caching": {...} }`` for an ``appsettings.json`` of seven sections ("Leave
    the other sections as they are"): a part of the file, not all of it; the sections it does not show stay (they
    were read as removed, 29 lines lost unseen), and the new one goes after the one it follows."""
    doc = ('{\n  "Logging": {\n    "LogLevel": {\n      "Default": "Information"\n    }\n  },\n  "AllowedHosts": "*",\n'
           '  "ConnectionStrings": {\n    "Db": "Host=localhost"\n  },\n  "Jwt": {\n    "Audience": "api"\n  },\n'
           '  "Pagination": {\n    "MaxPageSize": 100\n  }\n}\n')
    update = ('{\n  "ConnectionStrings": {\n    "Db": "Host=localhost",\n    "Redis": "localhost:6379"\n  },\n'
              '  "Caching": {\n    "TtlMinutes": 10\n  }\n}\n')
    assert merge_update(doc, update, "appsettings.json").merged == doc.replace(
        '"Host=localhost"\n  },\n', '"Host=localhost",\n    "Redis": "localhost:6379"\n  },\n'
        '  "Caching": {\n    "TtlMinutes": 10\n  },\n')


def test_a_new_namespace_shown_alone_goes_after_the_member_said_or_at_the_object_s_end():
    """``"LanguageSwitcher": { ... },`` shown alone at the members' depth (its trailing comma included): "after
    `Navigation`" puts it there, with the commas set; said nowhere, at the end of the object, the comma moved to
    the member before it.  A scalar at the left edge may be meant for a namespace: not placed so."""
    doc = ('{\n  "Navigation": {\n    "home": "Home"\n  },\n  "Footer": {\n    "privacy": "Privacy"\n  }\n}\n')
    member = '  "LanguageSwitcher": {\n    "label": "Language"\n  },\n'
    after = merge_update(doc, member, "en.json", after="Navigation").merged
    assert after == doc.replace('  "Footer"', member + '  "Footer"')
    at_end = merge_update(doc, member, "de.json").merged
    assert at_end == doc.replace('"Privacy"\n  }\n', '"Privacy"\n  },\n' + member.rstrip(",\n") + "\n")
    assert json.loads(at_end)["LanguageSwitcher"] == {"label": "Language"}
    with pytest.raises(UpdateError):
        merge_update(doc, '"settings": "Settings",\n', "en.json")
