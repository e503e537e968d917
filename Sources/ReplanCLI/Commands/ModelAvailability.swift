import Foundation
import Nightly

/// Whether the model stage will run, and why not, found from the sources `run` reads
/// (`ReplanSettings.keySource`), for `config show` and `status`. An operator's shell has no
/// `$CREDENTIALS_DIRECTORY`: when it uses the installed configuration file, the service's own
/// credential file, the one its unit hands over (`LoadCredential=`), is what the service will
/// read, so that file is what is reported.
enum ModelAvailability {
    static func check(_ settings: ReplanSettings, context ctx: CommandContext) -> HealthCheck.Model {
        if let source = settings.keySource {
            do throws(CLIError) {
                guard try source.read(context: ctx) != nil else {
                    return .off(reason: "\(source.description) is empty")
                }
                return .on(source: source.description)
            } catch {
                return .broken(reason: error.message)
            }
        }
        let credential = KeySource.serviceCredential
        let underSystemd = !(ctx.environment["CREDENTIALS_DIRECTORY"] ?? "").isEmpty
        // Only for the installed setup: the service's configuration file is the default one.
        if !underSystemd, ctx.configuration.path == ConfigurationFile.defaultPath,
            FileManager.default.fileExists(atPath: credential)
        {
            guard access(credential, R_OK) == 0 else {
                let reason = String(cString: strerror(errno))
                return .undetermined(
                    reason:
                        "the service reads \(credential) (LoadCredential=), which this user cannot read (\(reason)); sudo replan config show checks it"
                )
            }
            let service = KeySource(kind: .file(path: credential), label: "the service's credential, LoadCredential=")
            do throws(CLIError) {
                guard try service.read(context: ctx) != nil else {
                    return .off(reason: "the service's key file \(credential) is empty")
                }
                return .on(source: service.description)
            } catch {
                return .broken(reason: error.message)
            }
        }
        return .off(
            reason:
                "no API key configured (--api-key-file, $CREDENTIALS_DIRECTORY/openai-api-key, $OPENAI_API_KEY or api_key_file); the model stage is skipped"
        )
    }

    /// One line for `config show`.
    static func text(_ model: HealthCheck.Model) -> String {
        switch model {
        case .on(let source): "on: the key is read from \(source)"
        case .off(let reason): "off: \(reason)"
        case .broken(let reason): "off, and run will fail: \(reason)"
        case .undetermined(let reason): "cannot tell: \(reason)"
        }
    }
}
