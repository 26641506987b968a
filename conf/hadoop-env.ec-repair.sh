# hadoop-ec-repair additions for hadoop-env.sh (NameNode, DataNodes, clients).
# EC_REPAIR_HOME is where the hadoop-ec-repair/ distribution was copied.
export EC_REPAIR_HOME=${EC_REPAIR_HOME:-/opt/hadoop-ec-repair}
# The plugin jar only: lib/hadoop-ec-repair-tools.jar (command line, benchmarks) and lib/hadoop/
# never belong on a daemon's classpath.
export HADOOP_CLASSPATH="${HADOOP_CLASSPATH:+$HADOOP_CLASSPATH:}$EC_REPAIR_HOME/lib/hadoop-ec-repair.jar"
# libecrepair.so (links to the system's libisal.so.2: Debian/Ubuntu package libisal2).
export HADOOP_OPTS="$HADOOP_OPTS -Djava.library.path=$EC_REPAIR_HOME/lib/native"
# Refuse to start coders without ISA-L instead of falling back to the Java path:
# export HADOOP_OPTS="$HADOOP_OPTS -Decrepair.native.required=true"
