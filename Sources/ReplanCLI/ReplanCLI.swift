/// Entry point of the `replan` command line.
public enum ReplanCommandLine {
    public static func main() {}
}
