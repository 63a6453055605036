# create.rb: the HBase shell's create and create_namespace, for running
# widecol_ddl(t, 'hbase')'s output as Ruby in JRuby (WidecolHBase.java's
# shell command).  This machine's Maven mirror does not serve the
# hbase-shell artifact, so these are written here from the shell's
# documented behaviour, for exactly the keys widecol_ddl writes:
#   create 'ns:t', {NAME => 'f', VERSIONS => n, TTL => s,
#                   NEW_VERSION_BEHAVIOR => 'true'}, ..., SPLITS => ['k', ...]
# A hash with NAME is a column family; the others hold table options, of
# which SPLITS is the one taken (each key through Bytes.toBytesBinary, as
# the shell reads them).  Any other key is refused, so that the test can
# never pass over something widecol_ddl wrote and nobody ran.
java_import org.apache.hadoop.hbase.NamespaceDescriptor
java_import org.apache.hadoop.hbase.TableName
java_import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder
java_import org.apache.hadoop.hbase.client.TableDescriptorBuilder
java_import org.apache.hadoop.hbase.util.Bytes

NAME = 'NAME'.freeze
VERSIONS = 'VERSIONS'.freeze
TTL = 'TTL'.freeze
NEW_VERSION_BEHAVIOR = 'NEW_VERSION_BEHAVIOR'.freeze
SPLITS = 'SPLITS'.freeze

def family(spec)
  spec = spec.dup
  builder = ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(spec.delete(NAME)))
  builder.setMaxVersions(Integer(spec.delete(VERSIONS))) if spec.key?(VERSIONS)
  builder.setTimeToLive(Integer(spec.delete(TTL))) if spec.key?(TTL)
  if spec.key?(NEW_VERSION_BEHAVIOR)
    builder.setNewVersionBehavior(java.lang.Boolean.parseBoolean(spec.delete(NEW_VERSION_BEHAVIOR).to_s))
  end
  raise ArgumentError, "create: family keys not taken here: #{spec.keys.join(', ')}" unless spec.empty?
  builder.build
end

def create(table, *args)
  builder = TableDescriptorBuilder.newBuilder(TableName.valueOf(table))
  splits = nil
  args.each do |arg|
    raise ArgumentError, "create: #{arg.inspect} is not a hash" unless arg.is_a?(Hash)
    if arg.key?(NAME)
      builder.setColumnFamily(family(arg))
      next
    end
    options = arg.dup
    splits = options.delete(SPLITS).map { |key| Bytes.toBytesBinary(key) } if options.key?(SPLITS)
    raise ArgumentError, "create: table keys not taken here: #{options.keys.join(', ')}" unless options.empty?
  end
  if splits
    $admin.createTable(builder.build, splits.to_java(Java::byte[]))
  else
    $admin.createTable(builder.build)
  end
end

def create_namespace(name)
  $admin.createNamespace(NamespaceDescriptor.create(name).build)
end
