//! Environment variables that change what a program runs or loads: which libraries a loader
//! injects, which code an interpreter runs before the program, where packages are downloaded
//! from, which program a launcher starts. A local server's confirmation shows their values (the
//! rest of its environment stays masked: API keys live there), so a configuration that sets
//! `NODE_OPTIONS=--require …` cannot hide it behind `NODE_OPTIONS=…`.
//!
//! Each group names the documentation it comes from. Names are compared without case: npm reads
//! its prefix in either case, Windows names have none, and showing one value too many costs
//! nothing. In a group known by its prefix, a name that looks like a credential
//! (`npm_config__authToken`, `UV_PUBLISH_PASSWORD`) stays masked: it changes who is asking, not
//! what runs.

use crate::secret_words::looks_secret;

/// Variables read by name, and by prefix.
struct Group {
    names: &'static [&'static str],
    prefixes: &'static [&'static str],
}

const GROUPS: [Group; 14] = [
    // The dynamic loader of glibc: ld.so(8), "ENVIRONMENT", every `LD_` variable, and those it
    // removes in secure-execution mode for the same reason (GCONV_PATH loads code through
    // iconv). https://man7.org/linux/man-pages/man8/ld.so.8.html
    Group { names: &["GCONV_PATH"], prefixes: &["LD_"] },
    // macOS's loader: dyld(1), `DYLD_INSERT_LIBRARIES`, `DYLD_LIBRARY_PATH` and the rest.
    // https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man1/dyld.1.html
    Group { names: &[], prefixes: &["DYLD_"] },
    // Finding the program and its helpers: POSIX `PATH` (exec), Windows `PATHEXT`.
    // https://pubs.opengroup.org/onlinepubs/9799919799/basedefs/V1_chap08.html
    Group { names: &["PATH", "PATHEXT"], prefixes: &[] },
    // Node.js: "Environment variables" of the CLI documentation (`--require`/`--import` through
    // NODE_OPTIONS, module paths, and the TLS settings that decide what `npx` may download).
    // https://nodejs.org/api/cli.html#environment-variables
    Group {
        names: &[
            "NODE_OPTIONS",
            "NODE_PATH",
            "NODE_EXTRA_CA_CERTS",
            "NODE_TLS_REJECT_UNAUTHORIZED",
        ],
        prefixes: &[],
    },
    // npm and npx: "Any environment variables that start with npm_config_ will be interpreted
    // as a configuration parameter" (registry, userconfig, script-shell, …), in either case.
    // https://docs.npmjs.com/cli/using-npm/config#environment-variables
    Group { names: &[], prefixes: &["NPM_CONFIG_"] },
    // Python: "Environment variables" of the command line documentation (module search path,
    // startup file, home, user site, the breakpoint hook and warning filters, which import).
    // https://docs.python.org/3/using/cmdline.html#environment-variables
    Group {
        names: &[
            "PYTHONPATH",
            "PYTHONHOME",
            "PYTHONSTARTUP",
            "PYTHONUSERBASE",
            "PYTHONPLATLIBDIR",
            "PYTHONBREAKPOINT",
            "PYTHONWARNINGS",
            "PYTHONEXECUTABLE",
        ],
        prefixes: &[],
    },
    // pip, whose every option is an environment variable `PIP_<OPTION>` (index-url,
    // extra-index-url, find-links, …), and uv (`uvx`), whose variables all start with `UV_`.
    // https://pip.pypa.io/en/stable/topics/configuration/#environment-variables
    // https://docs.astral.sh/uv/reference/environment/
    Group { names: &[], prefixes: &["PIP_", "UV_"] },
    // Perl: perlrun(1), "ENVIRONMENT".  https://perldoc.perl.org/perlrun#ENVIRONMENT
    Group { names: &["PERL5LIB", "PERL5OPT", "PERLLIB", "PERL5DB"], prefixes: &[] },
    // Ruby: ruby(1), "ENVIRONMENT"; RubyGems' GEM_HOME and GEM_PATH.
    // https://docs.ruby-lang.org/en/master/ruby/options_md.html
    Group { names: &["RUBYOPT", "RUBYLIB", "RUBYPATH", "GEM_HOME", "GEM_PATH"], prefixes: &[] },
    // Java: JAVA_TOOL_OPTIONS (agents through -javaagent), the launcher's JDK_JAVA_OPTIONS,
    // HotSpot's _JAVA_OPTIONS, CLASSPATH, and JAVA_HOME, which launchers run java from.
    // https://docs.oracle.com/en/java/javase/21/troubleshoot/environment-variables-and-system-properties.html
    // https://docs.oracle.com/en/java/javase/21/docs/specs/man/java.html
    Group {
        names: &[
            "JAVA_TOOL_OPTIONS",
            "JDK_JAVA_OPTIONS",
            "_JAVA_OPTIONS",
            "CLASSPATH",
            "JAVA_HOME",
        ],
        prefixes: &[],
    },
    // Shells: bash's BASH_ENV (run by every non-interactive bash), SHELLOPTS, BASHOPTS and
    // exported functions (`BASH_FUNC_name%%`); POSIX sh's ENV.
    // https://www.gnu.org/software/bash/manual/bash.html#Bash-Variables
    // https://pubs.opengroup.org/onlinepubs/9799919799/utilities/sh.html
    Group { names: &["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"], prefixes: &["BASH_FUNC_"] },
    // Git: the variables that run programs or read other configuration (which can set any
    // of them again): git(1) "Environment Variables", git-config(1) "ENVIRONMENT".
    // https://git-scm.com/docs/git#_environment_variables
    // https://git-scm.com/docs/git-config#ENVIRONMENT
    Group {
        names: &[
            "GIT_EXEC_PATH",
            "GIT_SSH",
            "GIT_SSH_COMMAND",
            "GIT_ASKPASS",
            "SSH_ASKPASS",
            "GIT_EDITOR",
            "GIT_SEQUENCE_EDITOR",
            "GIT_PAGER",
            "GIT_EXTERNAL_DIFF",
            "GIT_PROXY_COMMAND",
            "GIT_TEMPLATE_DIR",
            "GIT_CONFIG",
            "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG_SYSTEM",
            "GIT_CONFIG_PARAMETERS",
            "GIT_CONFIG_COUNT",
        ],
        prefixes: &["GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"],
    },
    // Go (`go run pkg@version`): where modules come from and which toolchain runs.
    // https://pkg.go.dev/cmd/go#hdr-Environment_variables
    Group {
        names: &[
            "GOFLAGS",
            "GOPROXY",
            "GOSUMDB",
            "GONOSUMDB",
            "GONOSUMCHECK",
            "GOINSECURE",
            "GOPRIVATE",
            "GONOPROXY",
            "GOTOOLCHAIN",
        ],
        prefixes: &[],
    },
    // Docker (`docker run …`): which daemon runs the container, with which configuration.
    // https://docs.docker.com/reference/cli/docker/#environment-variables
    Group { names: &["DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG"], prefixes: &[] },
];

/// Whether the variable `name` changes what a program runs or loads (see the module's list).
pub fn changes_what_runs(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    GROUPS.iter().any(|group| {
        group.names.contains(&upper.as_str())
            || group.prefixes.iter().any(|prefix| {
                upper
                    .strip_prefix(prefix)
                    .is_some_and(|rest| !rest.is_empty() && !looks_secret(rest))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::changes_what_runs;

    #[test]
    fn loaders_interpreters_and_package_managers_are_in_the_list() {
        for name in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "DYLD_INSERT_LIBRARIES",
            "NODE_OPTIONS",
            "node_options",
            "NODE_PATH",
            "npm_config_registry",
            "NPM_CONFIG_USERCONFIG",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "PYTHONHOME",
            "PERL5LIB",
            "PERL5OPT",
            "RUBYOPT",
            "RUBYLIB",
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "CLASSPATH",
            "PATH",
            "Path",
            "UV_INDEX_URL",
            "PIP_INDEX_URL",
            "PIP_EXTRA_INDEX_URL",
            "BASH_ENV",
            "ENV",
            "BASH_FUNC_ls%%",
            "GIT_SSH_COMMAND",
            "GIT_CONFIG_KEY_0",
            "GOPROXY",
            "DOCKER_HOST",
        ] {
            assert!(changes_what_runs(name), "{name}");
        }
    }

    #[test]
    fn secrets_and_harmless_settings_stay_out() {
        for name in [
            "API_KEY",
            "GITHUB_TOKEN",
            "HOME",
            "LANG",
            "NODE_ENV",
            "npm_config__authToken",
            "NPM_CONFIG_//registry.npmjs.org/:_authToken",
            "UV_PUBLISH_PASSWORD",
            "UV_PUBLISH_TOKEN",
            "PIP_",
            "PYTHONPATHS",
            "LD",
            "GIT_DIR",
        ] {
            assert!(!changes_what_runs(name), "{name}");
        }
    }
}
